import { describe, expect, it } from "vitest";
import {
  STATE_FILES,
  stateFileAt,
  stateWriteRefusal,
} from "../../../../src/workspace/state/state-guard.ts";

const byModel = { taskId: "t1" };
const byHarness = { taskId: "t1", harness: true };

describe("the state guard's list", () => {
  it("names every state file once, with the tool or the harness that writes it", () => {
    expect(STATE_FILES.map((f) => [f.name, f.tool])).toEqual([
      ["PROGRESS.json", "progress_update"],
      ["feature_status.json", "feature_update"],
      ["HANDOFF.md", null],
      ["decisions.log", null],
      ["progress_log.md", null],
      ["agent_state.json", null],
    ]);
  });
});

describe("stateWriteRefusal", () => {
  it("refuses a write that is not the harness's, naming the file and the tool that keeps it", () => {
    expect(stateWriteRefusal("PROGRESS.json", byModel)).toBe(
      "PROGRESS.json is kept by progress_update; it cannot be written or edited as a file (write_file, edit_file). Nothing was changed: change it with progress_update.",
    );
    expect(stateWriteRefusal("feature_status.json", byModel)).toContain(
      "feature_status.json is kept by feature_update;",
    );
    for (const name of ["HANDOFF.md", "decisions.log", "progress_log.md", "agent_state.json"]) {
      expect(stateWriteRefusal(name, byModel)).toContain(
        `${name} is kept by the harness at the end of each task;`,
      );
    }
    expect(stateWriteRefusal("HANDOFF.md", byModel)).toContain("progress_update");
  });

  it("lets the harness's own writes through, and refuses when the metadata is missing or not exactly true", () => {
    for (const file of STATE_FILES) expect(stateWriteRefusal(file.name, byHarness)).toBeNull();
    expect(stateWriteRefusal("PROGRESS.json", undefined)).not.toBeNull();
    const truthy = { taskId: "t1", harness: "true" } as unknown as typeof byHarness;
    expect(stateWriteRefusal("PROGRESS.json", truthy)).not.toBeNull();
  });

  it("matches exact names at the root only (paths arrive normalised; the workspace is case-sensitive)", () => {
    for (const path of [
      "notes/PROGRESS.json",
      "progress.json",
      "Handoff.md",
      "PROGRESS.json.bak",
    ]) {
      expect(stateFileAt(path)).toBeUndefined();
      expect(stateWriteRefusal(path, byModel)).toBeNull();
    }
    expect(stateFileAt("decisions.log")?.tool).toBeNull();
    expect(stateFileAt("__proto__")).toBeUndefined();
    expect(stateFileAt("constructor")).toBeUndefined();
  });
});
