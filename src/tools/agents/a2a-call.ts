/**
 * `a2a_call` (domain `a2a`): sends a message to a remote A2A agent. Blocking (the default) waits
 * for the task to end or ask for input and returns its answer and artifacts; not blocking returns
 * the remote task id at once (follow it with a2a_get_task). A blocking call waits no longer than
 * the step may (ToolContext.deadline, remote/bounded-wait.ts): past it, it returns the task as it
 * is, with its id to read later. `task_id` continues a remote task that asked for input;
 * `context_id` keeps a conversation with the agent.
 */
import { z } from "zod";
import { stateWord } from "../../protocol/task-states.ts";
import { cutNote, sendAndWait } from "../../remote/bounded-wait.ts";
import { clientFor } from "../../remote/client.ts";
import { outcomeOf, type RemoteOutcome, sendRequest } from "../../remote/sdk-codec.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool } from "../input.ts";
import { remoteId, remoteMessage, withRemote } from "./remote-call.ts";

const toolInput = lazy(() =>
  z.strictObject({
    ...remoteMessage(),
    blocking: z.boolean().default(true),
    task_id: remoteId().optional(),
    context_id: remoteId().optional(),
  }),
);

/** The outcome of a remote call in a few lines for the model. */
export function describeOutcome(agent: string, outcome: RemoteOutcome): string {
  const state = stateWord(outcome.state);
  const ids = outcome.taskId
    ? `task ${outcome.taskId}${outcome.contextId ? `, context ${outcome.contextId}` : ""}`
    : "";
  const head = `${agent} answered (${state}${ids ? `; ${ids}` : ""}).`;
  const artifacts =
    outcome.artifacts.length > 0 ? `\nArtifacts: ${outcome.artifacts.join(", ")}` : "";
  const next =
    state === "input-required"
      ? `\nIt asks for input: answer with a2a_call and task_id ${outcome.taskId}.`
      : "";
  return `${head}${next}\n\n${outcome.text || "(no text)"}${artifacts}`;
}

/** The `a2a_call` tool. */
export const a2aCallTool = defineTool({
  name: "a2a_call",
  domain: "a2a",
  description:
    "Send a message to a remote A2A agent (registry name or URL). By default waits for its answer; with blocking false returns the task id at once. Give task_id to answer a remote task that asked for input.",
  input: toolInput,
  run: ({ agent, message, blocking, task_id, context_id }, context) =>
    withRemote(context, agent, async (connection) => {
      const client = await clientFor(connection.fetch, connection.target);
      const input = {
        parts: [{ text: message }],
        ...(task_id ? { taskId: task_id } : {}),
        ...(context_id ? { contextId: context_id } : {}),
      };
      const label = connection.target.label;
      if (!blocking) {
        const request = sendRequest({ ...input, returnImmediately: true });
        const result = await client.sendMessage(request, { signal: context.signal });
        return { content: describeOutcome(label, outcomeOf(result)) };
      }
      const { result, cut } = await sendAndWait(client, input, context.signal, context.deadline);
      const outcome = outcomeOf(result);
      return {
        content: `${describeOutcome(label, outcome)}${cut ? cutNote(outcome.taskId) : ""}`,
      };
    }),
});
