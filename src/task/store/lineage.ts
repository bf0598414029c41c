/**
 * Where a task sits in a delegation tree. A task a client started is its own root; a sub-agent's
 * task records its parent, the root task, the root's agent (whose workspace it works in, and under
 * whose ListTasks it appears) and the scratchpad it shares: its root conversation's (the
 * parent-child contract, `Lineage`, is subagents/transport.ts's). Kept in the task's metadata.
 */

import { fieldOf, textField } from "../../platform/fields.ts";
import { sha256Hex } from "../../platform/hex.ts";
import type { TaskRecord } from "./task-store.ts";

/**
 * The scratchpad id of a conversation: a hash of the owner, the agent and the contextId. It names
 * the scratchpad under the owner's prefix and works as nothing else (a contextId can be a
 * capability; its hash is not), so it may travel to a remote sub-agent.
 */
export async function conversationScratchId(
  owner: string,
  agent: string,
  contextId: string,
): Promise<string> {
  return (await sha256Hex(JSON.stringify(["scratch", owner, agent, contextId]))).slice(0, 32);
}

/** The scratchpad a task works with: the one it was given, else its own conversation's. */
export function scratchIdOf(record: TaskRecord): Promise<string> {
  const given = textField(record.metadata, "scratchId");
  if (given !== undefined) return Promise.resolve(given);
  return conversationScratchId(record.owner, record.agent, record.contextId);
}

/** The task's root task and agent (itself for a root task), and its parent if any. */
export function lineageOf(record: TaskRecord): {
  parentTaskId: string | null;
  rootTaskId: string;
  rootAgent: string;
} {
  return {
    parentTaskId: record.parentTaskId,
    rootTaskId: textField(record.metadata, "rootTaskId") ?? record.id,
    rootAgent: textField(record.metadata, "rootAgent") ?? record.agent,
  };
}

/**
 * For a task a remote harness started as its sub-agent: who called it (from its metadata): the
 * caller's agent and its opaque correlation id (never the caller's task id).
 */
export function remoteParentOf(
  record: TaskRecord,
): { correlationId: string; agent: string } | null {
  const parent = fieldOf(record.metadata, "remoteParent");
  const correlationId = textField(parent, "correlationId");
  const agent = textField(parent, "agent");
  return correlationId !== undefined && agent !== undefined ? { correlationId, agent } : null;
}
