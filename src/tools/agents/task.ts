/**
 * `task` (domain `delegation`): hands a focused piece of work to a sub-agent. The sub-agent runs
 * as a child task (its own Durable Object and context, its own identity, turn cap and tools)
 * with the parent's owner and trace; its final answer comes back as this tool's result. The call
 * waits without holding the parent's loop: the parent resumes when the child reports.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { defineTool, requiredText } from "../input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    subagent_type: requiredText(64).describe("The sub-agent's name, e.g. researcher."),
    description: requiredText(200).describe("Three to ten words saying what it will do."),
    prompt: requiredText(50_000).describe("The complete instructions for the sub-agent."),
  }),
);

/** The `task` tool. */
export const taskTool = defineTool({
  name: "task",
  domain: "delegation",
  description:
    "Delegate a focused piece of work to a sub-agent (the types available are listed in your instructions) and wait for its answer. The sub-agent sees only your prompt and the shared scratchpad, not this conversation: say exactly what to do, what you already know, where to read and write in the scratchpad, and what to return.",
  input: toolInput,
  async run({ subagent_type: agent, description, prompt }, context) {
    const started = await context.subagents.start({
      agent,
      description,
      prompt,
      callId: context.callId ?? crypto.randomUUID(),
    });
    if (!started.ok)
      return { content: `Could not start ${agent}: ${started.error}`, isError: true };
    return { content: "", suspend: { kind: "child", childTaskId: started.childTaskId, agent } };
  },
});
