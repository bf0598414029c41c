/**
 * Remote sub-agents: a child is a task on a remote A2A agent of the registry, started with a
 * non-blocking send whose message id derives from the parent task and the tool call (a retried
 * call reaches the same remote task on an agent that de-duplicates, as this harness does). The
 * message metadata names the calling agent and the scratchpad. No task or context id of this
 * deployment is sent (for an anonymous caller a task id opens the whole conversation): the message
 * id and the correlation id are hashes. A remote agent cannot call back, so the parent polls it
 * from its schedule; answers and cancels go through the same client.
 */

import type { RemoteAgents } from "../loop/contracts.ts";
import { opaqueId } from "../platform/ids.ts";
import { clientFor } from "../remote/client.ts";
import { outcomeOf, sendRequest } from "../remote/sdk-codec.ts";
import { type ChildTransport, SUBAGENT_METADATA, type SubagentMetadata } from "./transport.ts";

/** The transport to the registry agent `name`. */
export function remoteTransport(remote: RemoteAgents, name: string): ChildTransport {
  const connect = async () => {
    const connection = remote.connect(name);
    if (!connection.ok) throw new Error(connection.error);
    return clientFor(connection.fetch, connection.target);
  };
  return {
    async start(parent, call) {
      try {
        const client = await connect();
        const meta: SubagentMetadata = {
          correlationId: await opaqueId("parent", parent.taskId),
          parentAgent: parent.agent,
          scratchId: parent.lineage.scratchId,
        };
        const result = await client.sendMessage(
          sendRequest({
            messageId: `subagent-${await opaqueId("call", parent.taskId, call.callId)}`,
            parts: [{ text: call.prompt }],
            metadata: { [SUBAGENT_METADATA]: meta },
            returnImmediately: true,
          }),
        );
        const outcome = outcomeOf(result);
        if (!outcome.taskId) return { ok: false, error: `${name} answered without a task` };
        return { ok: true, childTaskId: outcome.taskId };
      } catch (error) {
        return {
          ok: false,
          error: `the remote agent ${name} is unreachable or refused the call: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    },
    async answer(childTaskId, parts) {
      const client = await connect();
      await client.sendMessage(
        sendRequest({ parts, taskId: childTaskId, returnImmediately: true }),
      );
    },
    async cancel(childTaskId) {
      const client = await connect();
      await client.cancelTask({ tenant: "", id: childTaskId, metadata: undefined });
    },
    async poll(childTaskId) {
      const client = await connect();
      const outcome = outcomeOf(await client.getTask({ tenant: "", id: childTaskId }));
      return {
        state: outcome.state,
        text: outcome.text,
        ...(outcome.state === "TASK_STATE_INPUT_REQUIRED" ||
        outcome.state === "TASK_STATE_AUTH_REQUIRED"
          ? { question: outcome.statusParts }
          : {}),
      };
    },
  };
}
