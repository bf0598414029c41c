/**
 * Identifiers: task and context ids, the idempotent task id of a message, and new W3C trace ids
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
  const data = new TextEncoder().encode(JSON.stringify([owner, agent, messageId]));
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
