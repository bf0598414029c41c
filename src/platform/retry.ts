/**
 * Retries of calls to the platform's dependencies (Durable Objects, D1, R2), the one policy every
 * caller shares. A failure is transient when the platform says so (an error whose `retryable` is
 * true: the object was reset, moved or restarted), when the connection dropped ("Network
 * connection lost") or when D1 reports its own reset; such a call is made again with exponential
 * backoff and jitter, up to {@link RETRY_ATTEMPTS} attempts in all. An `overloaded` error is never
 * retried at once (retrying at once worsens the overload, as Cloudflare's Durable Objects
 * error-handling guide says): its next attempt waits at least {@link OVERLOAD_WAIT_MS}. Any other
 * error is the callee's answer and goes to the caller unchanged. After the last attempt the
 * caller gets a {@link DependencyFailure} naming what failed; its message crosses RPC, so a caller
 * one object further can still tell which dependency it was ({@link failedDependency}).
 * A call made again must be safe to repeat: the ones that change state carry an idempotency key
 * (platform/recent-calls.ts).
 */

import type { Around } from "./binding-calls.ts";

/** Attempts of one call before its failure goes to the caller. */
export const RETRY_ATTEMPTS = 5;

/** The first backoff; each next one doubles, up to {@link MAX_BACKOFF_MS}. */
const BASE_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 2_000;

/** The least wait before an overloaded callee is called again. */
export const OVERLOAD_WAIT_MS = 1_000;

/** Messages of transient failures that carry no `retryable` flag (D1's, a dropped connection). */
const TRANSIENT_MESSAGES = [
  "network connection lost",
  "reset because its code was updated",
  "caused object to be reset",
  "durable object reset",
  "cannot resolve durable object due to transient issue",
  "called abort() to reset durable object",
];

const flag = (error: unknown, name: "retryable" | "overloaded" | "durableObjectReset"): boolean =>
  typeof error === "object" && error !== null && name in error && Reflect.get(error, name) === true;

/** How a failure may be retried: at once (after backoff), only after a longer wait, or never. */
export type TransientKind = "transient" | "overloaded" | null;

/** Whether `error` is a transient failure of a dependency, and which kind. */
export function transientKind(error: unknown): TransientKind {
  // Retried already, further down (in the callee): not again, else the attempts multiply.
  if (failedDependency(error) !== null) return null;
  if (flag(error, "overloaded")) return "overloaded";
  if (flag(error, "retryable") || flag(error, "durableObjectReset")) return "transient";
  const message = error instanceof Error ? error.message.toLowerCase() : "";
  if (message.includes("overloaded") && message.includes("d1")) return "overloaded";
  return TRANSIENT_MESSAGES.some((m) => message.includes(m)) ? "transient" : null;
}

/** Whether `error` is a transient failure that may be retried (overloaded ones after a wait). */
export const isTransient = (error: unknown): boolean => transientKind(error) !== null;

const MARK = " failed after ";

/** A dependency that still failed transiently after every attempt. */
export class DependencyFailure extends Error {
  /** What failed: `users.reserve`, `workspace.write`, `d1`, `r2.put`, ... */
  readonly dependency: string;

  constructor(dependency: string, attempts: number, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${dependency}${MARK}${attempts} attempts: ${why}`, { cause });
    this.name = "DependencyFailure";
    this.dependency = dependency;
  }
}

/**
 * The dependency a failure names, following `cause`s: a {@link DependencyFailure}, or an error
 * whose message is one's (it crossed an RPC boundary, which keeps only the message); else null.
 */
export function failedDependency(error: unknown): string | null {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof DependencyFailure) return e.dependency;
    const message = e instanceof Error ? e.message : "";
    const found = /^(?:Error: )?([\w.-]+) failed after \d+ attempts: /.exec(message);
    if (found?.[1]) return found[1];
    e = e instanceof Error ? e.cause : undefined;
  }
  return null;
}

/** The wait before attempt `attempt + 1`: doubling backoff with full jitter, longer if overloaded. */
function backoff(attempt: number, kind: TransientKind): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (attempt - 1));
  const wait = ceiling / 2 + Math.random() * (ceiling / 2);
  return kind === "overloaded" ? OVERLOAD_WAIT_MS + wait : wait;
}

/**
 * Runs `call` (given the attempt number, from 1), again while it fails transiently, at most
 * {@link RETRY_ATTEMPTS} times; then throws a {@link DependencyFailure} naming `dependency`.
 */
export async function retried<T>(
  dependency: string,
  call: (attempt: number) => Promise<T> | T,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
    } catch (error) {
      const kind = transientKind(error);
      if (kind === null) throw error;
      if (attempt >= RETRY_ATTEMPTS) throw new DependencyFailure(dependency, attempt, error);
      await new Promise((resolve) => setTimeout(resolve, backoff(attempt, kind)));
    }
  }
}

/** The retries as an observer of binding calls: a call that may be repeated is {@link retried}. */
export const retryTransient: Around = (call, run) =>
  call.repeatable ? retried(call.name, run) : run(1);
