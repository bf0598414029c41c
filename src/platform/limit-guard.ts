/**
 * The local limit guard: with `CF_PLAN` set (free or paid; `npm run dev` and every test set it,
 * a deployed Worker leaves it empty and production enforces its own), the Worker and every
 * Durable Object meet Cloudflare's limits (platform/cloudflare-limits.ts) where they would in
 * production, at the storage and fetch seams:
 *
 * - each entrypoint (the Worker's `fetch` and `scheduled`, each Durable Object method and alarm)
 *   is one invocation (platform/invocation-budget.ts), whose subrequests are counted: global
 *   `fetch`, every Durable Object call, D1 query and R2 operation;
 * - a value or row over 2,000,000 bytes, or more than 100 bound parameters, written to D1 or to
 *   an object's SQLite is refused with the error production throws (`string or blob too big:
 *   SQLITE_TOOBIG`), the limit named after it.
 *
 * Off (`CF_PLAN` empty), every function hands back what it was given and patches nothing.
 */
import { aroundNamespace } from "./binding-calls.ts";
import {
  type CfPlan,
  MAX_SQL_PARAMETERS,
  MAX_SQL_VALUE_BYTES,
  oversized,
  parsePlan,
} from "./cloudflare-limits.ts";
import {
  countSubrequest,
  inInvocation,
  limitError,
  outsideInvocation,
} from "./invocation-budget.ts";

/** The Durable Object namespaces whose calls are subrequests. */
const OBJECT_BINDINGS = ["TASKS", "CONTEXTS", "WORKSPACES", "USERS", "EVENTS", "RETENTION"];

/** `call()`, with what it throws as a rejection: the async APIs it stands for reject. */
function rejecting<T>(call: () => Promise<T> | T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The guard's plan for `env`, or null when it is off. */
export function guardPlan(env: object): CfPlan | null {
  return parsePlan((env as { CF_PLAN?: string }).CF_PLAN);
}

/** Runs a Worker entrypoint (`label`: `fetch`, `scheduled`) as one invocation when the guard is on. */
export function guardedEntry<T>(env: object, label: string, fn: () => T): T {
  const plan = guardPlan(env);
  return plan ? inInvocation(plan, label, fn) : fn();
}

const guarded = new WeakMap<object, object>();

/**
 * `env` with its D1 database, R2 bucket and Durable Object namespaces counted and checked, and
 * global `fetch` counted, when the guard is on; `env` itself otherwise.
 */
export function guardedEnv<E extends object>(env: E): E {
  if (!guardPlan(env)) return env;
  const hit = guarded.get(env);
  if (hit) return hit as E;
  guardFetch();
  const bindings = env as Record<string, unknown>;
  const wrapped: Record<string, unknown> = { ...bindings };
  for (const name of OBJECT_BINDINGS)
    if (bindings[name]) wrapped[name] = guardNamespace(bindings[name] as object, name);
  if (bindings.DB) wrapped.DB = guardD1(bindings.DB as D1Database);
  if (bindings.FILES) wrapped.FILES = guardR2(bindings.FILES as R2Bucket);
  guarded.set(env, wrapped);
  return wrapped as E;
}

let fetchGuarded = false;

/** Counts every global `fetch` as a subrequest of the invocation that makes it. */
function guardFetch(): void {
  if (fetchGuarded) return;
  fetchGuarded = true;
  const original = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) =>
    rejecting(() => {
      const url = input instanceof Request ? input.url : String(input);
      countSubrequest("fetch", `fetch ${url.slice(0, 80)}`);
      return original(input, init);
    });
}

/** Hands out stubs whose calls are subrequests, each starting the callee's own invocation. */
function guardNamespace<N extends object>(ns: N, binding: string): N {
  return aroundNamespace(ns, binding, (call, run) => {
    try {
      countSubrequest("service", call.name);
    } catch (error) {
      return Promise.reject(error);
    }
    // The call's own promise (it pipelines).
    return outsideInvocation(() => run(1));
  });
}

const isWrite = (sql: string) => /^\s*(INSERT|REPLACE|UPDATE)\b/i.test(sql);

/** Throws what production throws for a statement over the SQL limits (`prefix`: D1's `D1_ERROR: `). */
function checkStatement(sql: string, values: readonly unknown[], where: string, prefix: string) {
  if (values.length > MAX_SQL_PARAMETERS)
    throw limitError(
      `${prefix}too many SQL variables: SQLITE_ERROR`,
      `${values.length} bound parameters in one query to ${where}; the limit ("Maximum bound parameters per query") is ${MAX_SQL_PARAMETERS}: ${sql.slice(0, 60)}`,
    );
  const over = oversized(values, isWrite(sql));
  if (over)
    throw limitError(
      `${prefix}string or blob too big: SQLITE_TOOBIG`,
      `a ${over.what} of ${over.bytes} bytes written to ${where}; the limit ("Maximum string, BLOB or table row size") is ${MAX_SQL_VALUE_BYTES} bytes: ${sql.replace(/\s+/g, " ").trim().slice(0, 60)}`,
    );
}

/** A statement's SQL and values, for a batch of guarded statements. */
const statements = new WeakMap<
  object,
  { inner: D1PreparedStatement; sql: string; values: unknown[] }
>();

function guardStatement(inner: D1PreparedStatement, sql: string, values: unknown[]) {
  const run =
    <K extends "first" | "run" | "all" | "raw">(name: K) =>
    (...args: unknown[]) =>
      rejecting(() => {
        countSubrequest("d1", sql.replace(/\s+/g, " ").trim().slice(0, 60));
        checkStatement(sql, values, "D1", "D1_ERROR: ");
        return (inner[name] as (...a: unknown[]) => unknown).apply(inner, args);
      });
  const proxy: D1PreparedStatement = new Proxy(inner, {
    get(target, prop) {
      if (prop === "bind")
        return (...bound: unknown[]) => guardStatement(target.bind(...bound), sql, bound);
      if (prop === "first" || prop === "run" || prop === "all" || prop === "raw") return run(prop);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  statements.set(proxy, { inner, sql, values });
  return proxy;
}

function guardD1(db: D1Database): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => guardStatement(target.prepare(sql), sql, []);
      if (prop === "batch")
        return (batch: D1PreparedStatement[]) =>
          rejecting(() => {
            const inner = batch.map((s) => {
              const known = statements.get(s);
              if (!known) return s;
              countSubrequest("d1", `batch: ${known.sql.replace(/\s+/g, " ").trim().slice(0, 50)}`);
              checkStatement(known.sql, known.values, "D1", "D1_ERROR: ");
              return known.inner;
            });
            return target.batch(inner);
          });
      if (prop === "exec")
        return (sql: string) =>
          rejecting(() => {
            for (const one of sql.split(";").filter((s) => s.trim() !== ""))
              countSubrequest("d1", `exec ${one.trim().slice(0, 50)}`);
            return target.exec(sql);
          });
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function guardR2(bucket: R2Bucket): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        rejecting(() => {
          const key = typeof args[0] === "string" ? ` ${args[0].slice(0, 60)}` : "";
          countSubrequest("service", `R2 ${String(prop)}${key}`);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        });
    },
  });
}

const guardedSql = new WeakSet<SqlStorage>();
const guardedClasses = new WeakSet<object>();

/**
 * Guards the Durable Object `object` (of a class below `base`) when the guard is on: each of its
 * methods called from outside (an RPC call, `fetch`, `alarm`) is an invocation named
 * `<label>.<method>`, and what its SQLite is given is checked (patched in place, as the runtime
 * accepts only its own storage object; once per object and class).
 */
export function guardObject(
  object: object,
  base: object,
  ctx: DurableObjectState,
  env: object,
  label: string,
): void {
  const plan = guardPlan(env);
  if (!plan) return;
  for (
    let proto = Object.getPrototypeOf(object);
    proto && proto !== base;
    proto = Object.getPrototypeOf(proto)
  ) {
    if (guardedClasses.has(proto)) break;
    guardedClasses.add(proto);
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      const method = descriptor?.value;
      // `open` runs from the constructor, before the first call: part of that call's invocation.
      if (name === "constructor" || name === "open" || typeof method !== "function") continue;
      Object.defineProperty(proto, name, {
        ...descriptor,
        value: function (this: unknown, ...args: unknown[]) {
          return inInvocation(plan, `${label}.${name}`, () => Reflect.apply(method, this, args));
        },
      });
    }
  }
  const sql = ctx.storage.sql;
  if (guardedSql.has(sql)) return;
  guardedSql.add(sql);
  const exec = sql.exec;
  // Configurable: the storage meter's ledger patches it again, around this one.
  Object.defineProperty(sql, "exec", {
    configurable: true,
    writable: true,
    value: (...args: Parameters<SqlStorage["exec"]>) => {
      const [query, ...values] = args;
      checkStatement(String(query), values, `a ${label} object's SQLite`, "");
      return Reflect.apply(exec, sql, args);
    },
  });
}
