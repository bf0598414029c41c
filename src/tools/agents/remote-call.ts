/**
 * The frame of every a2a_* tool that talks to a remote agent: connect (under the call rules), do
 * the work, and turn a refused connection or a failed call into a tool error naming the agent.
 */
import { z } from "zod";
import type { RemoteTarget, ToolContext, ToolResult } from "../../loop/contracts.ts";
import { remoteError } from "../../remote/client.ts";
import { requiredText } from "../input.ts";

/** The remote agent a call names: a registry name or an http(s) URL. */
export const remoteAgentName = () => requiredText(2_000);

/** What a2a_call and a2a_call_streaming send: the agent and the message text. */
export const remoteMessage = () => ({
  agent: remoteAgentName(),
  message: requiredText(100_000),
});

/** A remote context or task id the model passes back. */
export const remoteId = () => z.string().max(200);

/** A connection the call rules allowed: the target and the fetch that reaches it. */
export interface RemoteConnection {
  target: RemoteTarget;
  fetch: typeof fetch;
}

/** Runs `work` on a connection to `agent` (registry name or URL); failures are tool errors. */
export async function withRemote(
  context: ToolContext,
  agent: string,
  work: (connection: RemoteConnection) => Promise<ToolResult>,
): Promise<ToolResult> {
  const connection = context.remote.connect(agent);
  if (!connection.ok) return { content: connection.error, isError: true };
  try {
    return await work(connection);
  } catch (error) {
    return { content: remoteError(connection.target, error), isError: true };
  }
}
