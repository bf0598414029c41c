import { describe, expect, it } from "vitest";
import {
  composeTaskEnd,
  DECISIONS_MAX_LINES,
  HANDOFF_LIST_ITEMS,
} from "../../../src/workspace/handoff.ts";
import {
  PROGRESS_ITEM_CHARS,
  PROGRESS_MAX_ITEMS,
} from "../../../src/workspace/state/state-files.ts";

const input = {
  taskId: "t-1",
  agent: "assistant",
  state: "TASK_STATE_COMPLETED",
  asked: "Write the report",
  answer: "Report written.",
  at: "2026-11-22T07:00:00.000Z",
};

/** A task that wrote PROGRESS.json (from none) and changed no file. */
const WROTE_PROGRESS = { files: [], progressAtStart: null };
/** The end note from PROGRESS.json's and decisions.log's texts, the other files absent. */
const end = (task: typeof input, progress: string | null, decisions: string | null) =>
  composeTaskEnd(
    task,
    { progress, decisions, progressLog: null, agentState: null, featureStatus: null },
    WROTE_PROGRESS,
  );

describe("the end note", () => {
  it("hands over what was asked, done, next, blocked and answered", () => {
    const progress = JSON.stringify({
      accomplished: ["Drafted"],
      remaining: ["Proofread"],
      decisions: [],
      blockers: [],
    });
    const { handoff, decisions } = end(input, progress, null);
    expect(handoff).toContain("# Handoff from task t-1");
    expect(handoff).toContain("agent assistant, ended completed.");
    expect(handoff).toContain("## Asked\nWrite the report");
    expect(handoff).toContain("## Done\n- Drafted");
    expect(handoff).toContain("## Next\n- Proofread");
    expect(handoff).toContain("## Blockers\n- (none recorded)");
    expect(handoff).toContain("## Answer (start)\nReport written.");
    expect(decisions).toBeNull();
  });

  it("appends only the decisions decisions.log does not have yet", () => {
    const progress = JSON.stringify({
      accomplished: [],
      remaining: [],
      decisions: ["Use tables", "Cite sources"],
      blockers: [],
    });
    const log = "2026-11-21T10:00:00.000Z t-0 Use tables\n";
    const { decisions } = end(input, progress, log);
    expect(decisions).toBe(`${log}2026-11-22T07:00:00.000Z | assistant | t-1 | Cite sources\n`);
    expect(end(input, progress, decisions).decisions).toBeNull();
  });

  it("clips a long question and answer and survives a missing or broken PROGRESS.json", () => {
    const long = { ...input, asked: "q".repeat(600), answer: "a".repeat(900) };
    const { handoff } = end(long, "{not json", null);
    expect(handoff).toContain(`${"q".repeat(499)}…`);
    expect(handoff).toContain(`${"a".repeat(799)}…`);
    expect(handoff).toContain("## Done\n- Nothing: this task changed no file");
  });

  it("stays bounded: lists cut to their first (done: last) entries, the log rolls over", () => {
    const many = (stem: string) =>
      Array.from({ length: PROGRESS_MAX_ITEMS }, (_, i) =>
        `${stem} ${i} ${"y".repeat(PROGRESS_ITEM_CHARS)}`.slice(0, PROGRESS_ITEM_CHARS),
      );
    const progress = JSON.stringify({
      accomplished: many("done"),
      remaining: many("todo"),
      decisions: many("chose"),
      blockers: many("blocked"),
    });
    const log = Array.from(
      { length: DECISIONS_MAX_LINES },
      (_, i) => `2026-11-21T10:00:00.000Z t-0 old decision ${i}`,
    ).join("\n");
    const { handoff, decisions } = end({ ...input, answer: "a".repeat(100_000) }, progress, log);
    expect(handoff.length).toBeLessThan(16_000);
    expect(handoff).toContain(`- todo 0 `);
    expect(handoff).not.toContain(`- todo ${HANDOFF_LIST_ITEMS} `);
    expect(handoff).toContain(`- done ${PROGRESS_MAX_ITEMS - 1} `);
    expect(handoff).toContain(
      `- and ${PROGRESS_MAX_ITEMS - HANDOFF_LIST_ITEMS} more (PROGRESS.json)`,
    );
    const lines = (decisions ?? "").trimEnd().split("\n");
    expect(lines).toHaveLength(DECISIONS_MAX_LINES);
    expect(lines[0]).toContain(`old decision ${PROGRESS_MAX_ITEMS}`);
    expect(lines.at(-1)).toContain(`chose ${PROGRESS_MAX_ITEMS - 1}`);
  });

  it("reads a PROGRESS.json over the bounds clipped to them", () => {
    const progress = JSON.stringify({
      accomplished: [],
      remaining: Array.from({ length: 200 }, (_, i) => `r${i} ${"z".repeat(2_000)}`),
      decisions: [],
      blockers: [],
    });
    const { handoff } = end(input, progress, null);
    expect(handoff).toContain(
      `- and ${PROGRESS_MAX_ITEMS - HANDOFF_LIST_ITEMS} more (PROGRESS.json)`,
    );
  });
});
