import { describe, expect, it } from "vitest";
import { composeTaskEnd } from "../../../src/workspace/handoff.ts";

const input = {
  taskId: "t-1",
  agent: "assistant",
  state: "TASK_STATE_COMPLETED",
  asked: "Write the report",
  answer: "Report written.",
  at: "2026-11-22T07:00:00.000Z",
};

describe("the end note", () => {
  it("hands over what was asked, done, next, blocked and answered", () => {
    const progress = JSON.stringify({
      accomplished: ["Drafted"],
      remaining: ["Proofread"],
      decisions: [],
      blockers: [],
    });
    const { handoff, decisions } = composeTaskEnd(input, progress, null);
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
    const { decisions } = composeTaskEnd(input, progress, log);
    expect(decisions).toBe(`${log}2026-11-22T07:00:00.000Z t-1 Cite sources\n`);
    expect(composeTaskEnd(input, progress, decisions).decisions).toBeNull();
  });

  it("clips a long question and answer and survives a missing or broken PROGRESS.json", () => {
    const long = { ...input, asked: "q".repeat(600), answer: "a".repeat(900) };
    const { handoff } = composeTaskEnd(long, "{not json", null);
    expect(handoff).toContain(`${"q".repeat(499)}…`);
    expect(handoff).toContain(`${"a".repeat(799)}…`);
    expect(handoff).toContain("## Done\n- (none recorded)");
  });
});
