/**
 * Identifiers: task and context ids, the idempotent task id of a message and of a sub-agent's
 * task, and new W3C trace ids
 * (a received `traceparent` is read by platform/trace-context.ts).
 */
import { randomHex, sha256Hex, toHex } from "./hex.ts";

/** A new task or context id (UUID v4). */
export function newId(): string {
  return crypto.randomUUID();
}

/**
 * The task id a new message gets: a UUID (v8 layout) derived from SHA-256 of the owner, the agent
 * and the message id, so a resent message (same owner, same messageId) names the same task and
 * reaches the same task object, concurrent duplicates included.
 */
export async function taskIdFor(owner: string, agent: string, messageId: string): Promise<string> {
  return derivedUuid([owner, agent, messageId]);
}

/**
 * The task id of the child a parent task's tool call starts (a local sub-agent): derived as a
 * message's is, from a list of another length, so no message id a caller sends names it, and a
 * re-run of the same tool call (after a restart) names the same child.
 */
export async function childTaskIdFor(
  owner: string,
  agent: string,
  parentTaskId: string,
  callId: string,
): Promise<string> {
  return derivedUuid(["subagent", owner, agent, parentTaskId, callId]);
}

/** A UUID (v8 layout) from SHA-256 of `parts`. */
async function derivedUuid(parts: string[]): Promise<string> {
  const data = new TextEncoder().encode(JSON.stringify(parts));
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", data)).slice(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = toHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A new W3C trace id: 32 lowercase hex characters. */
export function newTraceId(): string {
  return randomHex(16);
}

/** An opaque, stable stand-in for an id of this deployment, fit to send to another. */
export async function opaqueId(kind: string, ...parts: string[]): Promise<string> {
  return (await sha256Hex(JSON.stringify([kind, ...parts]))).slice(0, 32);
}
