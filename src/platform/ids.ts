/**
 * Identifiers: task and context ids, the idempotent task id of a message, and W3C trace ids
 * (new, or taken from a `traceparent` header).
 */
import { randomHex, toHex } from "./hex.ts";

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

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The trace id of a W3C `traceparent` header, or null when it is absent or invalid (version ff,
 * an all-zero trace or parent id, extra fields on version 00).
 */
export function traceIdFromTraceparent(header: string | null | undefined): string | null {
  const match = TRACEPARENT.exec((header ?? "").trim().toLowerCase());
  if (!match) return null;
  const [, version, traceId, parentId, , rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (/^0+$/.test(traceId ?? "") || /^0+$/.test(parentId ?? "")) return null;
  return traceId ?? null;
}
