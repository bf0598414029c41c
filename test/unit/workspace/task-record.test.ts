import { describe, expect, it } from "vitest";
import type { FileChange } from "../../../src/workspace/change-log.ts";
import { composeTaskEnd } from "../../../src/workspace/handoff.ts";
import {
  type FeatureStatus,
  featureStatusText,
} from "../../../src/workspace/state/feature-status.ts";
import { latestEntries, PROGRESS_LOG_ENTRIES } from "../../../src/workspace/state/progress-log.ts";
import type { TaskRecord } from "../../../src/workspace/task-record.ts";
import { observedRuns } from "../../helpers/test-runs.ts";

const AT = "2026-11-22T07:00:00.000Z";
const task = (taskId: string) => ({
  taskId,
  agent: "assistant",
  state: "TASK_STATE_COMPLETED",
  asked: "continue",
  answer: "Done.",
  at: AT,
});
const progress = (accomplished: string[], remaining: string[] = []) =>
  JSON.stringify({ accomplished, remaining, decisions: [], blockers: [] });

/** The end note of `taskId` with its records, over PROGRESS.json and feature_status.json now. */
function endOf(
  taskId: string,
  record: TaskRecord,
  texts: { progress?: string; status?: FeatureStatus; log?: string },
  use: { turns?: number; tokens?: number; costUsd?: number } = {},
) {
  return composeTaskEnd(
    { ...task(taskId), ...use },
    {
      progress: texts.progress ?? null,
      decisions: null,
      progressLog: texts.log ?? null,
      agentState: null,
      featureStatus: texts.status ? featureStatusText(texts.status) : null,
    },
    record,
  );
}

const SLUG = "slug() written and tested";

describe("a task's records in its progress_log.md entry and HANDOFF.md", () => {
  it("a task that only continued claims nothing earlier tasks did", () => {
    const status = observedRuns([
      { taskId: "t-1", outcomes: [{ file: "slug.test.ts", ok: true }] },
    ]);
    const note = endOf(
      "t-2",
      { files: [], progressAtStart: undefined },
      { progress: progress([SLUG]), status },
    );
    const entry = latestEntries(note.progressLog, 1)[0] ?? "";
    expect(entry).toContain(
      "- Done: nothing: no file changed, no PROGRESS.json item completed, no test run",
    );
    expect(entry).toContain("- Files: no file created, changed or deleted");
    expect(entry).toContain("- Tests: none run by this task (last run: 1 of 1 passing, task t-1)");
    expect(entry).toContain("0 files changed (+0 -0 lines) · tests not run ·");
    expect(entry).not.toContain("slug()");
    expect(note.handoff).toContain(
      "## Done\n- Nothing: this task changed no file, completed no PROGRESS.json item and ran no test.",
    );
    expect(note.handoff).not.toContain(SLUG);
  });

  it("names only the PROGRESS.json items this task completed", () => {
    const note = endOf(
      "t-2",
      { files: [], progressAtStart: progress([SLUG]) },
      { progress: progress([SLUG, "kebab() written"]) },
    );
    expect(latestEntries(note.progressLog, 1)[0]).toContain("- Done: kebab() written\n");
    expect(note.handoff).toContain("## Done\n- kebab() written\n- Files:");
    expect(note.handoff).not.toContain(SLUG);
  });

  it("lists the files created, changed and deleted with their lines, and the totals", () => {
    const files: FileChange[] = [
      { path: "slug.ts", kind: "created", added: 3, removed: 0 },
      { path: "util.ts", kind: "changed", added: 1, removed: 2 },
      { path: "old.ts", kind: "deleted", added: 0, removed: 4 },
    ];
    const note = endOf("t-2", { files, progressAtStart: undefined }, {});
    const entry = latestEntries(note.progressLog, 1)[0] ?? "";
    expect(entry).toContain(
      "- Files: created slug.ts (+3), changed util.ts (+1 -2), deleted old.ts (-4)",
    );
    expect(entry).toContain("- Metrics: 2 files changed (+4 -6 lines)");
    expect(entry).toContain("- Done: no PROGRESS.json item completed");
    expect(note.handoff).toContain("- Files: created slug.ts (+3), changed util.ts (+1 -2)");
  });

  it("says what the tests this task ran found, a test that broke named first", () => {
    const status = observedRuns([
      { taskId: "t-1", outcomes: [{ file: "slug.test.ts", ok: true, name: "slugs" }] },
      {
        taskId: "t-2",
        outcomes: [
          { file: "slug.test.ts", ok: false, name: "slugs" },
          { file: "kebab.test.ts", ok: true, name: "kebabs" },
        ],
      },
    ]);
    const files: FileChange[] = [{ path: "slug.ts", kind: "changed", added: 1, removed: 1 }];
    const note = endOf("t-2", { files, progressAtStart: undefined }, { status });
    const entry = latestEntries(note.progressLog, 1)[0] ?? "";
    expect(entry).toContain(
      "- Tests: REGRESSION in slug.test.ts (passed before, fails now); ran 2 test files: 1 of 2 passing; failing: slug.test.ts (slugs)",
    );
    expect(entry).toContain("· tests 1/2 passing ·");
    expect(note.handoff).toContain("- Tests: REGRESSION in slug.test.ts");
  });

  it("never records as passing the tests of a task that changed files and ran none", () => {
    const status = observedRuns([
      { taskId: "t-1", outcomes: [{ file: "slug.test.ts", ok: true }] },
    ]);
    const files: FileChange[] = [{ path: "slug.ts", kind: "changed", added: 1, removed: 1 }];
    const note = endOf("t-2", { files, progressAtStart: undefined }, { status });
    const entry = latestEntries(note.progressLog, 1)[0] ?? "";
    expect(entry).toContain(
      "- Tests: none run by this task (last run: 1 of 1 passing, task t-1, before this task's changes)",
    );
    expect(entry).toContain("· tests not run ·");
    expect(entry).not.toMatch(/tests 1\/1 passing/);
  });

  it("says the task's model turns, tokens and estimated cost", () => {
    const note = endOf(
      "t-2",
      { files: [], progressAtStart: undefined },
      {},
      { turns: 3, tokens: 1_200, costUsd: 0.0123 },
    );
    expect(latestEntries(note.progressLog, 1)[0]).toContain(
      "· 3 model turns · 1200 tokens · $0.0123 ·",
    );
    expect(note.handoff).toContain("- Model: 3 model turns · 1200 tokens · $0.0123 estimated");
  });

  it("keeps one entry a task and rolls the oldest off past the bound", () => {
    let log: string | undefined;
    for (let i = 0; i < PROGRESS_LOG_ENTRIES + 2; i++)
      log = endOf(
        `t-${i}`,
        { files: [], progressAtStart: undefined },
        log ? { log } : {},
      ).progressLog;
    expect(log).toMatch(/^# Progress log\n\(2 older entries rolled off\)\n\n## /);
    const entries = latestEntries(log ?? "", PROGRESS_LOG_ENTRIES + 5);
    expect(entries).toHaveLength(PROGRESS_LOG_ENTRIES);
    expect(entries[0]).toContain("· task t-2 ·");
    expect(entries.at(-1)).toContain(`· task t-${PROGRESS_LOG_ENTRIES + 1} ·`);
  });
});
