/**
 * What one invocation has spent of its plan's limits, for the local limit guard
 * (platform/limit-guard.ts). An invocation is what Cloudflare counts limits by: a Worker request
 * or cron event, a Durable Object call (an RPC method or `fetch`) or alarm. Each runs in a scope
 * of its own (AsyncLocalStorage), so promises, timers and `waitUntil` work it starts count for
 * it; a call reaching another object starts that object's own invocation. Work outside any scope
 * (a test calling a function directly) is not counted.
 *
 * A breach throws the error production throws (its message first, then the limit it broke) and
 * is logged as `cloudflare limit exceeded` and kept in {@link limitBreaches}, so a test fails
 * even when the code it runs catches the error.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { CfPlan, InvocationLimits } from "./cloudflare-limits.ts";
import { PLAN_LIMITS } from "./cloudflare-limits.ts";
import { ledgerMark } from "./ledger.ts";
import { log } from "./logging.ts";

/** What an invocation spent so far. */
interface Spent {
  label: string;
  plan: CfPlan;
  fetch: number;
  services: number;
  d1Queries: number;
}

const scope = new AsyncLocalStorage<Spent>();

/** Breaches since the last {@link clearLimitBreaches}, oldest first. */
const breaches: string[] = [];

/**
 * Runs `fn` as one invocation named `label` under `plan`'s limits; inside an invocation already
 * (a method of an object calling another of its own), in that one.
 */
export function inInvocation<T>(plan: CfPlan, label: string, fn: () => T): T {
  if (scope.getStore()) return fn();
  ledgerMark(`invocation ${label}`); // the critical-path ledger (STORAGE_METER)
  return scope.run({ label, plan, fetch: 0, services: 0, d1Queries: 0 }, fn);
}

/**
 * Runs `fn` outside the current invocation: a call to another Durable Object, whose own
 * invocation must not start inside the caller's (objects of one script share an isolate
 * locally).
 */
export function outsideInvocation<T>(fn: () => T): T {
  return scope.exit(fn);
}

/** Records a breach and returns the error production would throw for it. */
export function limitError(production: string, detail: string): Error {
  const message = `${production} (local limit guard: ${detail})`;
  breaches.push(message);
  log("error", "cloudflare limit exceeded", { error: message });
  return new Error(message);
}

function check(spent: Spent, over: keyof InvocationLimits | null, detail: string): void {
  if (over === null) return;
  const limits = PLAN_LIMITS[spent.plan];
  const production =
    over === "d1Queries"
      ? "D1_ERROR: Too many API requests by single worker invocation."
      : "Too many subrequests by single Worker invocation.";
  throw limitError(
    production,
    `${detail} in one invocation (${spent.label}), over ${limits.label}'s ${limits[over]} per invocation; CF_PLAN=${spent.plan}`,
  );
}

/**
 * Counts one subrequest of the current invocation, `fetch` (to the internet) or to a Cloudflare
 * `service` (`d1`: also a D1 query); throws when it is over the plan's limits.
 */
export function countSubrequest(kind: "fetch" | "service" | "d1", name: string): void {
  const spent = scope.getStore();
  if (!spent) return;
  const limits = PLAN_LIMITS[spent.plan];
  if (kind === "fetch") spent.fetch += 1;
  else spent.services += 1;
  if (kind === "d1") spent.d1Queries += 1;
  const total = spent.fetch + spent.services;
  if (kind === "d1" && spent.d1Queries > limits.d1Queries)
    check(spent, "d1Queries", `${spent.d1Queries} D1 queries (the last: ${name})`);
  if (kind === "fetch" && spent.fetch > limits.fetch)
    check(spent, "fetch", `${spent.fetch} fetch subrequests (the last: ${name})`);
  if (kind !== "fetch" && spent.services > limits.services)
    check(
      spent,
      "services",
      `${spent.services} subrequests to Cloudflare services (the last: ${name})`,
    );
  if (total > limits.total) check(spent, "total", `${total} subrequests (the last: ${name})`);
}

/** What the current invocation spent so far, or null outside one (tests, the bench). */
export function invocationSpent(): Readonly<Spent> | null {
  const spent = scope.getStore();
  return spent ? { ...spent } : null;
}

/** The breaches since the last clear (a test fails on any it did not ask for). */
export function limitBreaches(): readonly string[] {
  return breaches.slice();
}

/** Forgets the breaches seen so far. */
export function clearLimitBreaches(): void {
  breaches.length = 0;
}
