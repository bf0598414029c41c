/**
 * `a2a_get_task` and `a2a_cancel` (domain `a2a`): read or cancel a task on a remote A2A agent, by
 * the id a2a_call returned.
 */
import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "../loop/contracts.ts";
import { clientFor, remoteError } from "../remote/client.ts";
import { outcomeOf } from "../remote/sdk-codec.ts";
import { describeOutcome } from "./a2a-call.ts";
import { parseInput } from "./input.ts";

const Input = z.strictObject({
  agent: z.string().trim().min(1, "is required").max(2_000),
  task_id: z.string().trim().min(1, "is required").max(200),
});

const schema = {
  type: "object" as const,
  properties: { agent: { type: "string" }, task_id: { type: "string" } },
  required: ["agent", "task_id"],
  additionalProperties: false,
};

async function onTask(
  tool: string,
  input: Record<string, unknown>,
  context: ToolContext,
  action: "get" | "cancel",
): Promise<ToolResult> {
  const parsed = parseInput(tool, Input, input);
  if (!parsed.ok) return parsed.result;
  const connection = context.remote.connect(parsed.data.agent);
  if (!connection.ok) return { content: connection.error, isError: true };
  try {
    const client = await clientFor(connection.fetch, connection.target);
    const params = { tenant: "", id: parsed.data.task_id };
    const task =
      action === "get"
        ? await client.getTask(params, { signal: context.signal })
        : await client.cancelTask({ ...params, metadata: undefined }, { signal: context.signal });
    return { content: describeOutcome(connection.target.label, outcomeOf(task)) };
  } catch (error) {
    return { content: remoteError(connection.target, error), isError: true };
  }
}

/** The `a2a_get_task` tool. */
export const a2aGetTaskTool: Tool = {
  name: "a2a_get_task",
  domain: "a2a",
  description: "Read a remote A2A task's state and answer by the task id a2a_call returned.",
  inputSchema: schema,
  run: (input, context) => onTask("a2a_get_task", input, context, "get"),
};

/** The `a2a_cancel` tool. */
export const a2aCancelTool: Tool = {
  name: "a2a_cancel",
  domain: "a2a",
  description: "Cancel a remote A2A task by the task id a2a_call returned.",
  inputSchema: schema,
  run: (input, context) => onTask("a2a_cancel", input, context, "cancel"),
};
