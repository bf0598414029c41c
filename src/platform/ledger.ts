/**
 * The critical-path ledger, the storage meter's timeline (`STORAGE_METER=true`): every Durable
 * Object call, D1 statement and R2 operation made in this isolate, each with when it started and
 * how long it took; every SQL statement a Durable Object ran on its own storage (synchronous, so
 * counted without a time) with the rows it wrote; the invocations the local limit guard started
 * (marks `invocation <label>`: a Worker request, an object's call or alarm); and marks the harness sets where a client's wait ends (`response
 * <method>` when an A2A answer is ready, `first-event` when a stream's first event is written,
 * `model` when a model call starts). A benchmark resets it, runs one task and reads which round
 * trips ended before the mark. Per isolate like the meter's counts (under `wrangler dev` the
 * Worker and every object share one); at most {@link LEDGER_MAX} entries, the rest only counted;
 * also how many timed round trips are still in flight (a reader waits for none before it counts).
 * A round trip started by work no caller waits for ({@link unawaitedWork}: a status change's
 * listeners, such as the task index's write) is marked `background`: never on a critical path.
 * Off (every function a no-op, every binding untouched) until `meteredEnv` switches it on.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { aroundNamespace } from "./binding-calls.ts";

/** What an entry records. */
export type LedgerKind = "do" | "d1" | "r2" | "sql" | "mark";

/** One round trip, SQL statement or mark. */
export interface LedgerEntry {
  kind: LedgerKind;
  /** `TASKS.create`, the SQL's start, `get tasks/...`, the object class, or the mark's name. */
  name: string;
  /** Milliseconds from the last reset to its start. */
  at: number;
  /** Milliseconds until it settled (0 for SQL and marks). */
  ms: number;
  /** A SQL statement's first words (kind `sql`). */
  sql?: string;
  /** Rows the statement wrote (kind `sql`: SQLite's count, as Durable Objects bill them). */
  rows?: number;
  /** Started by work no caller waits for ({@link unawaitedWork}). */
  background?: true;
}

/** Entries kept between resets; more are counted in `dropped`. */
export const LEDGER_MAX = 20_000;

let on = false;
const unawaited = new AsyncLocalStorage<true>();
let origin: number | null = null;
let entries: LedgerEntry[] = [];
let dropped = 0;
let inFlight = 0;

// Made at first use: during module evaluation workerd's clock reads 0.
const since = () => {
  origin ??= Date.now();
  return Date.now() - origin;
};

function push(entry: LedgerEntry): void {
  if (entries.length < LEDGER_MAX) entries.push(entry);
  else dropped += 1;
}

/** Switches the ledger on for this isolate (the meter is on). */
export function enableLedger(): void {
  on = true;
}

/** Whether the ledger records (so callers can skip building a name). */
export function ledgerOn(): boolean {
  return on;
}

/** Empties the ledger and starts its clock again. */
export function resetLedger(): void {
  entries = [];
  dropped = 0;
  origin = Date.now();
}

/** The entries since the last reset, oldest first, and the round trips not yet settled. */
export function ledgerEntries(): { entries: LedgerEntry[]; dropped: number; inFlight: number } {
  return { entries: entries.slice(), dropped, inFlight };
}

/** Records a mark named `name` now (nothing when the ledger is off). */
export function ledgerMark(name: string): void {
  if (on) push({ kind: "mark", name, at: since(), ms: 0 });
}

/** Runs `work` as work no caller waits for: the round trips it starts are marked `background`. */
export function unawaitedWork<T>(work: () => T): T {
  return on ? unawaited.run(true, work) : work();
}

/** Runs `call` and records it as one round trip of `kind` once its promise settles. */
export function timed<T>(kind: LedgerKind, name: string, call: () => T): T {
  if (!on) return call();
  const entry: LedgerEntry = {
    kind,
    name,
    at: since(),
    ms: 0,
    ...(unawaited.getStore() ? { background: true as const } : {}),
  };
  push(entry);
  const result = call();
  if (!(result instanceof Object) || typeof (result as { then?: unknown }).then !== "function")
    return result;
  inFlight += 1;
  const done = () => {
    inFlight -= 1;
    entry.ms = since() - entry.at;
  };
  return Promise.resolve(result).then(
    (value) => {
      done();
      return value;
    },
    (error: unknown) => {
      done();
      throw error;
    },
  ) as T;
}

/** A Durable Object namespace whose stubs record their calls (binding name `binding`). */
export function meterNamespace<N extends object>(ns: N, binding: string): N {
  return aroundNamespace(ns, binding, (call, run) => timed("do", call.name, () => run(1)));
}

const patched = new WeakSet<SqlStorage>();

/**
 * Counts the SQL statements of the object whose state is `ctx` as `sql` entries named `label`
 * (patches this object's `ctx.storage.sql.exec` in place: the runtime accepts only its own state
 * object, so a wrapper cannot stand in for it; once per object). Nothing when the ledger is off.
 */
export function meterObjectSql(ctx: DurableObjectState, label: string): void {
  if (!on) return;
  const sql = ctx.storage.sql;
  if (patched.has(sql)) return;
  patched.add(sql);
  const exec = sql.exec;
  Object.defineProperty(sql, "exec", {
    // Configurable: a test that counts an object's statements the same way (answer-writes) may
    // find the ledger's patch there, the ledger's switch being one per isolate.
    configurable: true,
    value: (...args: Parameters<SqlStorage["exec"]>) => {
      const query = String(args[0]).replace(/\s+/g, " ").trim().slice(0, 60);
      const cursor: SqlStorageCursor<Record<string, SqlStorageValue>> = Reflect.apply(
        exec,
        sql,
        args,
      );
      // The local runtime's own bookkeeping of object names (not in production) is not counted.
      // A write has run by now: its rows are known (a read's are 0).
      if (!query.includes("__miniflare"))
        push({
          kind: "sql",
          name: label,
          at: since(),
          ms: 0,
          sql: query,
          rows: cursor.rowsWritten,
        });
      return cursor;
    },
  });
}
