/**
 * workSummary (src/task/steps/work-summary.ts): the answer the harness composes for a task whose model
 * wrote no text, from the harness events in its history, here made by the real tool-events hook.
 */
import { describe, expect, it } from "vitest";
import { toolEventsHook } from "../../../../src/hooks/tool-events.ts";
import { harnessEventMessage } from "../../../../src/loop/harness-events.ts";
import type { Message } from "../../../../src/protocol/wire.ts";
import { WORK_SUMMARY_HEADING, workSummary } from "../../../../src/task/steps/work-summary.ts";
import { hookContext } from "../../../helpers/hook-context.ts";

const ids = { taskId: "t1", contextId: "c1" };

/** The history a task's calls leave: each call's tool_call and tool_result events. */
async function historyOf(
  calls: Array<{ name: string; input: Record<string, unknown>; error?: boolean }>,
): Promise<Message[]> {
  const { ctx, events } = hookContext();
  for (const [i, call] of calls.entries()) {
    const toolCall = { id: `c${i}`, name: call.name, input: call.input };
    await toolEventsHook.beforeTool?.(ctx, toolCall);
    await toolEventsHook.afterTool?.(ctx, toolCall, {
      content: call.error ? "no such file" : "done",
      ...(call.error ? { isError: true } : {}),
    });
  }
  const user: Message = { messageId: "m0", role: "ROLE_USER", parts: [{ text: "Do it." }] };
  return [user, ...events.map((e) => harnessEventMessage("assistant", e, ids))];
}

describe("workSummary", () => {
  it("names the files changed, the tools run with their failures, and why the task stopped", async () => {
    const history = await historyOf([
      { name: "write_file", input: { path: "notes.md", content: "x" } },
      { name: "read_file", input: { path: "notes.md" } },
      {
        name: "edit_file",
        input: { path: "missing.md", old_text: "a", new_text: "b" },
        error: true,
      },
      { name: "edit_file", input: { path: "src/`a`.ts", old_text: "a", new_text: "b" } },
      { name: "write_file", input: { path: "notes.md", content: "y" } },
    ]);
    expect(workSummary(history, "end_turn", undefined)).toBe(
      [
        WORK_SUMMARY_HEADING,
        "- Files changed: `notes.md`, `src/a.ts`",
        "- Tools run: write_file ×2, read_file ×1, edit_file ×2 (1 failed)",
        "- Why it stopped: the model ended its turn without writing any text (stop reason `end_turn`).",
      ].join("\n"),
    );
  });

  it("says none when nothing ran, and takes the status text as the reason when there is one", async () => {
    const summary = workSummary(
      await historyOf([]),
      "max_tokens",
      "The answer was cut off at the agent's output limit (1000 tokens).",
    );
    expect(summary).toContain("- Files changed: none\n- Tools run: none\n");
    expect(summary).toMatch(/Why it stopped: The answer was cut off .*1000 tokens\)\.$/);
  });

  it("bounds what it lists", async () => {
    const writes = Array.from({ length: 25 }, (_, i) => ({
      name: "write_file",
      input: { path: `f${i}.md`, content: "x" },
    }));
    const summary = workSummary(await historyOf(writes), "end_turn", undefined);
    expect(summary).toContain("`f19.md` and 5 more");
    expect(summary).not.toContain("`f20.md`");
  });
});
