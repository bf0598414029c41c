/**
 * Plan steps carry the agent that owns them (reference 001 US1): `write_todos` takes it as
 * `agent` or as a leading "[agent]" tag, publishes every step with its owner, and the prompt of an
 * agent that delegates asks for the tags.
 */
import { describe, expect, it } from "vitest";
import { bundledAgents } from "../../../../src/agents/registry.ts";
import type { HarnessEvent } from "../../../../src/loop/contracts.ts";
import { systemPrompt } from "../../../../src/loop/prompt/prompt.ts";
import { writeTodosTool } from "../../../../src/tools/state/todos.ts";
import { toolContext } from "../../../helpers/tool-context.ts";

function run(todos: unknown[]) {
  const events: HarnessEvent[] = [];
  const ctx = toolContext({ agent: "assistant", emit: (e) => void events.push(e) });
  return writeTodosTool.run({ todos } as never, ctx).then((result) => ({ result, events }));
}

describe("write_todos: agent-tagged steps", () => {
  it("publishes each step with the agent that owns it, from agent or a [tag], else the planner", async () => {
    const { result, events } = await run([
      { content: "Read the brief", status: "completed" },
      { content: "[researcher] Find three sources", status: "in_progress" },
      { content: "Weigh the options", status: "pending", agent: "deep-thinker" },
      { content: "[Writer]   Draft the report", status: "pending" },
      { content: "[not an agent!] Keep this text", status: "pending" },
    ]);
    expect(events[0]?.detail).toEqual({
      todos: [
        { content: "Read the brief", status: "completed", agent: "assistant" },
        { content: "Find three sources", status: "in_progress", agent: "researcher" },
        { content: "Weigh the options", status: "pending", agent: "deep-thinker" },
        { content: "Draft the report", status: "pending", agent: "writer" },
        { content: "[not an agent!] Keep this text", status: "pending", agent: "assistant" },
      ],
    });
    expect(result.content).toBe(
      [
        "Plan saved (1/5 done):",
        "[x] Read the brief",
        "[~] [researcher] Find three sources",
        "[ ] [deep-thinker] Weigh the options",
        "[ ] [writer] Draft the report",
        "[ ] [not an agent!] Keep this text",
      ].join("\n"),
    );
  });

  it("refuses an agent that is not an agent's name", async () => {
    const { result, events } = await run([{ content: "x", status: "pending", agent: "<script>" }]);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("todos.0.agent");
    expect(events).toEqual([]);
  });

  it("tells the model how to tag: in the tool's description and, for an agent that delegates, the prompt", () => {
    expect(writeTodosTool.description).toContain('"[agent] step"');
    const agent = bundledAgents().get("assistant");
    if (!agent) throw new Error("no assistant");
    const prompt = (tools: string[]) =>
      systemPrompt({
        agent,
        tools,
        memory: { shared: null, user: null },
        environment: null,
        now: new Date(),
        timeZone: "UTC",
        delegation: {
          subagents: [{ name: "researcher", description: "Finds facts.", transport: "local" }],
        },
      })[0]?.text ?? "";
    expect(prompt(["task", "write_todos"])).toContain(
      'In your plan (write_todos), tag each step you delegate with the agent that does it: "[agent] step", e.g. "[researcher] Find three sources on X".',
    );
    expect(prompt(["task"])).not.toContain("[agent] step");
  });
});
