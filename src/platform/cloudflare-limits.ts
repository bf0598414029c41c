/**
 * Cloudflare's limits that the local limit guard (platform/limit-guard.ts) holds a dev server and
 * the tests to, as Cloudflare's documentation states them (developers.cloudflare.com, Workers,
 * D1 and Durable Objects "Limits" pages; the February 2026 changelog for subrequests), and the
 * `CF_PLAN` var that picks a plan. Pure: no I/O, no clock.
 *
 * - Subrequests per invocation: Workers Free 50 to the internet (`fetch`) and 1,000 to Cloudflare
 *   services (Durable Objects, D1, R2); Workers Paid 10,000 of both together (its default).
 * - D1 queries per invocation: Free 50, Paid 1,000 ("Queries per Worker invocation").
 * - A string, BLOB or table row in D1 or in a Durable Object's SQLite: at most 2,000,000 bytes
 *   ("Maximum string, BLOB or table row size"); at most 100 bound parameters per query.
 */

/** A plan whose limits the guard enforces. */
export type CfPlan = "free" | "paid";

/** What one invocation (a Worker request, a cron event, a Durable Object call or alarm) may do. */
export interface InvocationLimits {
  /** The plan's name as Cloudflare writes it. */
  label: string;
  /** `fetch` subrequests to the internet. */
  fetch: number;
  /** Subrequests to Cloudflare services: Durable Object calls, D1 queries, R2 operations. */
  services: number;
  /** All subrequests together. */
  total: number;
  /** D1 queries (each statement of a batch counted: Cloudflare does not say a batch is one). */
  d1Queries: number;
}

/** The per-invocation limits of each plan. */
export const PLAN_LIMITS: Record<CfPlan, InvocationLimits> = {
  free: { label: "Workers Free", fetch: 50, services: 1_000, total: 1_050, d1Queries: 50 },
  paid: { label: "Workers Paid", fetch: 10_000, services: 10_000, total: 10_000, d1Queries: 1_000 },
};

/** The largest string, BLOB or row D1 and a Durable Object's SQLite store, in bytes. */
export const MAX_SQL_VALUE_BYTES = 2_000_000;

/** The most bound parameters one SQL query may have (D1 and Durable Object SQLite). */
export const MAX_SQL_PARAMETERS = 100;

/**
 * The plan `CF_PLAN` names, or null when the guard is off: unset or empty (a deployed Worker:
 * production enforces its own limits) or `off`. Any other value is a configuration error.
 */
export function parsePlan(value: string | undefined): CfPlan | null {
  const plan = (value ?? "").trim().toLowerCase();
  if (plan === "" || plan === "off") return null;
  if (plan === "free" || plan === "paid") return plan;
  throw new Error(`CF_PLAN is "${value}": free, paid or empty (off)`);
}

const encoder = new TextEncoder();

/** The bytes a bound SQL value takes (a string as UTF-8); 0 for numbers, null and the like. */
function valueBytes(value: unknown): number {
  if (typeof value === "string") return encoder.encode(value).length;
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return value.byteLength;
  return 0;
}

/** At most how many bytes a bound SQL value takes (a UTF-16 unit is at most 3 bytes of UTF-8). */
function valueBytesAtMost(value: unknown): number {
  return typeof value === "string" ? value.length * 3 : valueBytes(value);
}

/** What is over {@link MAX_SQL_VALUE_BYTES} in one statement's bound values. */
export interface Oversize {
  /** `value`: one string or BLOB; `row`: the values a write puts in its row, together. */
  what: "value" | "row";
  bytes: number;
}

/**
 * The value, or the row of a write (`row`: the statement writes one row with these values; equal
 * values bound twice, as an upsert does, counted once), over {@link MAX_SQL_VALUE_BYTES}, or null.
 * Exact, and cheap for the usual small values: a value is encoded only when its length could
 * put it over.
 */
export function oversized(values: readonly unknown[], row: boolean): Oversize | null {
  let atMost = 0;
  for (const value of values) atMost += valueBytesAtMost(value);
  if (atMost <= MAX_SQL_VALUE_BYTES) return null;
  let total = 0;
  const seen = new Set<unknown>();
  for (const value of values) {
    const bytes = valueBytesAtMost(value) > 0 ? valueBytes(value) : 0;
    if (bytes > MAX_SQL_VALUE_BYTES) return { what: "value", bytes };
    if (typeof value === "string" && seen.has(value)) continue;
    seen.add(value);
    total += bytes;
  }
  return row && total > MAX_SQL_VALUE_BYTES ? { what: "row", bytes: total } : null;
}
