/**
 * Webhook signatures, HMAC-SHA256 compared in constant time:
 * - GitHub: `X-Hub-Signature-256: sha256=<hex>` over the raw body.
 * - Generic: `X-Signature: sha256=<hex>` over `<X-Timestamp>.<raw body>`, with `X-Timestamp` in
 *   Unix seconds no further than the replay window from now.
 * Every failure is the same `false` to the caller: no hint which part was wrong.
 */
import { hmacHex } from "../platform/hex.ts";

const encoder = new TextEncoder();

function sameHex(expected: string, given: string): boolean {
  const a = encoder.encode(expected);
  const b = encoder.encode(given.toLowerCase());
  return a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
}

/** The value of a `sha256=<hex>` header, or null. */
function digestOf(header: string | null): string | null {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? "");
  return match?.[1] ?? null;
}

/** Verifies GitHub's `X-Hub-Signature-256`. */
export async function verifyGithub(
  secret: string,
  body: string,
  header: string | null,
): Promise<boolean> {
  const given = digestOf(header);
  return given !== null && sameHex(await hmacHex(secret, body), given);
}

/** Verifies a generic `X-Signature` with `X-Timestamp` inside the replay window. */
export async function verifyGeneric(
  secret: string,
  body: string,
  header: string | null,
  timestamp: string | null,
  windowSeconds: number,
  nowMs = Date.now(),
): Promise<boolean> {
  const given = digestOf(header);
  if (given === null || timestamp === null || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > windowSeconds) return false;
  return sameHex(await hmacHex(secret, `${timestamp}.${body}`), given);
}

/** Signs like a generic sender (for clients, the CLI and tests). */
export async function signGeneric(
  secret: string,
  body: string,
  timestamp: number,
): Promise<string> {
  return `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`;
}

/** Signs like GitHub. */
export async function signGithub(secret: string, body: string): Promise<string> {
  return `sha256=${await hmacHex(secret, body)}`;
}
