/**
 * `a2a_get_task` and `a2a_cancel` (domain `a2a`): read or cancel a task on a remote A2A agent, by
 * the id a2a_call returned.
 */
import { z } from "zod";
import type { Tool } from "../../loop/contracts.ts";
import { clientFor } from "../../remote/client.ts";
import { outcomeOf } from "../../remote/sdk-codec.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool, requiredText } from "../input.ts";
import { describeOutcome } from "./a2a-call.ts";
import { remoteAgentName, withRemote } from "./remote-call.ts";

const toolInput = lazy(() =>
  z.strictObject({
    agent: remoteAgentName(),
    task_id: requiredText(200),
  }),
);

/** A tool on a remote task by id: reads it (`get`) or cancels it. */
function remoteTaskTool(name: string, description: string, action: "get" | "cancel"): Tool {
  return defineTool({
    name,
    domain: "a2a",
    description,
    input: toolInput,
    run: ({ agent, task_id }, context) =>
      withRemote(context, agent, async (connection) => {
        const client = await clientFor(connection.fetch, connection.target);
        const params = { tenant: "", id: task_id };
        const task =
          action === "get"
            ? await client.getTask(params, { signal: context.signal })
            : await client.cancelTask(
                { ...params, metadata: undefined },
                { signal: context.signal },
              );
        return { content: describeOutcome(connection.target.label, outcomeOf(task)) };
      }),
  });
}

/** The `a2a_get_task` tool. */
export const a2aGetTaskTool = remoteTaskTool(
  "a2a_get_task",
  "Read a remote A2A task's state and answer by the task id a2a_call returned.",
  "get",
);

/** The `a2a_cancel` tool. */
export const a2aCancelTool = remoteTaskTool(
  "a2a_cancel",
  "Cancel a remote A2A task by the task id a2a_call returned.",
  "cancel",
);
