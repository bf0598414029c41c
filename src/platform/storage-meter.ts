/**
 * Storage cost by instrumentation: with `STORAGE_METER=true`, the Worker and every Durable
 * Object see their D1 database and R2 bucket through counting wrappers, so a benchmark can read
 * how many D1 statements (reads and writes) and R2 operations (by R2's billing classes) a task
 * costs. Counts are kept per isolate (under `wrangler dev` the Worker and its objects share one)
 * and read or reset at `/api/admin/storage-meter`. The same switch turns on the critical-path
 * ledger (platform/ledger.ts): each D1 and R2 call is also timed there, and every Durable Object
 * namespace of `env` hands out stubs whose calls are timed. Off by default: the bindings are then
 * the runtime's own objects, untouched.
 */
import { enableLedger, meterNamespace, resetLedger, timed } from "./ledger.ts";

/** The counters since the last reset. */
export interface StorageCounts {
  since: string;
  /**
   * D1 statements (reads, writes, batches) and the rows they read and wrote, as D1 bills them
   * (from the results' `meta`: `first()` returns none, so its rows are not counted).
   */
  d1: {
    statements: number;
    reads: number;
    writes: number;
    batches: number;
    rowsRead: number;
    rowsWritten: number;
  };
  /** R2 calls; `classA` (put, list, multipart) and `classB` (get, head) as R2 bills them. */
  r2: { get: number; head: number; put: number; list: number; delete: number; other: number };
  r2ClassA: number;
  r2ClassB: number;
}

const fresh = () => ({
  since: new Date().toISOString(),
  d1: { statements: 0, reads: 0, writes: 0, batches: 0, rowsRead: 0, rowsWritten: 0 },
  r2: { get: 0, head: 0, put: 0, list: 0, delete: 0, other: 0 },
});
// Made at first use: during module evaluation workerd's clock reads 0.
let started: ReturnType<typeof fresh> | null = null;
const current = () => {
  started ??= fresh();
  return started;
};

/** The counters as they stand (with R2's billing classes). */
export function storageCounts(): StorageCounts {
  const counts = current();
  const { r2 } = counts;
  return {
    ...structuredClone(counts),
    r2ClassA: r2.put + r2.list + r2.other,
    r2ClassB: r2.get + r2.head,
  };
}

/** Starts counting from zero. */
export function resetStorageCounts(): void {
  started = fresh();
  resetLedger();
}

const metered = new WeakMap<object, object>();

/** The Durable Object namespaces whose calls the ledger times. */
const OBJECT_BINDINGS = ["TASKS", "CONTEXTS", "WORKSPACES", "USERS"] as const;

/**
 * `env` with metered D1 and R2 bindings and timed Durable Object namespaces when
 * `STORAGE_METER` is "true" (which also switches the ledger on); `env` itself otherwise.
 */
export function meteredEnv<E extends object>(env: E): E {
  const vars = env as { STORAGE_METER?: string; DB?: D1Database; FILES?: R2Bucket };
  if (vars.STORAGE_METER !== "true") return env;
  const hit = metered.get(env);
  if (hit) return hit as E;
  enableLedger();
  const objects = env as Partial<Record<(typeof OBJECT_BINDINGS)[number], object>>;
  const wrapped = {
    ...env,
    ...Object.fromEntries(
      OBJECT_BINDINGS.flatMap((name) => {
        const ns = objects[name];
        return ns ? [[name, meterNamespace(ns, name)]] : [];
      }),
    ),
    ...(vars.DB ? { DB: meterD1(vars.DB) } : {}),
    ...(vars.FILES ? { FILES: meterR2(vars.FILES) } : {}),
  } as E;
  metered.set(env, wrapped);
  return wrapped;
}

/** A statement's name in the ledger: its SQL's first words. */
const sqlName = (sql: string) => sql.replace(/\s+/g, " ").trim().slice(0, 60);

const isRead = (sql: string) => /^\s*(SELECT|WITH\s[\s\S]*?\bSELECT)\b/i.test(sql);

function countStatement(sql: string): void {
  const { d1 } = current();
  d1.statements += 1;
  if (isRead(sql)) d1.reads += 1;
  else d1.writes += 1;
}

/** Adds the rows a D1 result's `meta` says were read and written (a batch: each result's). */
function countRows(result: unknown): void {
  const { d1 } = current();
  for (const one of Array.isArray(result) ? result : [result]) {
    const meta = (one as { meta?: { rows_read?: unknown; rows_written?: unknown } } | null)?.meta;
    if (typeof meta?.rows_read === "number") d1.rowsRead += meta.rows_read;
    if (typeof meta?.rows_written === "number") d1.rowsWritten += meta.rows_written;
  }
}

/** `result` (a promise of a D1 result), its rows counted once it settles. */
function withRows<T>(result: T): T {
  if (result instanceof Promise) void result.then(countRows, () => undefined);
  return result;
}

function meterStatement(statement: D1PreparedStatement, sql: string): D1PreparedStatement {
  const run =
    <K extends "first" | "run" | "all" | "raw">(name: K) =>
    (...args: unknown[]) => {
      countStatement(sql);
      return withRows(
        timed("d1", sqlName(sql), () =>
          (statement[name] as (...a: unknown[]) => unknown).apply(statement, args),
        ),
      );
    };
  return new Proxy(statement, {
    get(target, prop) {
      if (prop === "bind")
        return (...values: unknown[]) => meterStatement(target.bind(...values), sql);
      if (prop === "first" || prop === "run" || prop === "all" || prop === "raw") return run(prop);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The SQL text a metered statement was prepared with. */
const statementSql = new WeakMap<object, string>();

function meterD1(db: D1Database): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare")
        return (sql: string) => {
          const statement = meterStatement(target.prepare(sql), sql);
          statementSql.set(statement, sql);
          return statement;
        };
      if (prop === "batch")
        return (statements: D1PreparedStatement[]) => {
          current().d1.batches += 1;
          for (const s of statements) countStatement(statementSql.get(s) ?? "");
          return withRows(
            timed("d1", `batch of ${statements.length}`, () => target.batch(statements)),
          );
        };
      if (prop === "exec")
        return (sql: string) => {
          for (const one of sql.split(";").filter((s) => s.trim() !== "")) countStatement(one);
          return timed("d1", `exec ${sqlName(sql)}`, () => target.exec(sql));
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function meterR2(bucket: R2Bucket): R2Bucket {
  const ops = new Set(["get", "head", "put", "list", "delete"]);
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const op = String(prop);
      return (...args: unknown[]) => {
        const { r2 } = current();
        const key = (ops.has(op) ? op : "other") as keyof typeof r2;
        r2[key] += 1;
        const name = typeof args[0] === "string" ? `${op} ${args[0].slice(0, 80)}` : op;
        return timed("r2", name, () => (value as (...a: unknown[]) => unknown).apply(target, args));
      };
    },
  });
}
