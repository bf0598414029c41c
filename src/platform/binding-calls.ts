/**
 * One wrapper for the calls the harness makes through its bindings, with observers around them:
 * each layer that watches or changes those calls (the limit guard, the ledger, the retries, the
 * fault injector) gives an {@link Around} and gets back the binding seen through it. A Durable
 * Object namespace hands out stubs whose method calls go through the observer, named
 * `<binding>.<method>` (`users.reserve`, `task.create`, `workspace.write`); a call run again (a
 * retry) gets a fresh stub of the same object, as Cloudflare advises after a failed call. D1's
 * statements (`run`, `first`, `all`, `raw`, `batch`, `exec`) are calls named `d1`; R2's
 * operations `r2.<op>`. Properties that are not calls pass through untouched.
 */

/** One call through a binding. */
export interface BindingCall {
  /** `users.reserve`, `d1`, `r2.put`, ... */
  name: string;
  /** Whether running it again repeats exactly the same request (no stream is consumed by it). */
  repeatable: boolean;
}

/**
 * An observer: runs the call (`run`, as often as it likes; `run(attempt)` with attempt > 1 uses a
 * fresh stub) and hands back its result, or throws instead.
 */
export type Around = (call: BindingCall, run: (attempt: number) => unknown) => unknown;

/** The short name of each Durable Object binding in call names. */
export const OBJECT_CALL_NAMES: Readonly<Record<string, string>> = {
  TASKS: "task",
  CONTEXTS: "context",
  WORKSPACES: "workspace",
  USERS: "users",
  EVENTS: "events",
  RETENTION: "retention",
};

const SKIPPED = new Set(["then", "constructor", "id", "name"]);

/** Whether a call's arguments can be sent again (a stream is read by the first attempt). */
const repeatableArgs = (args: readonly unknown[]) =>
  !args.some((a) => a instanceof ReadableStream || a instanceof Request);

/** `ns`'s stubs, each method call through `around`, named `<name>.<method>`. */
export function aroundNamespace<N extends object>(ns: N, name: string, around: Around): N {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "getByName") return value.bind(target);
      return (...getArgs: unknown[]) => {
        const make = (): object => Reflect.apply(value, target, getArgs);
        return aroundStub(make(), make, name, around);
      };
    },
  });
}

function aroundStub<S extends object>(stub: S, make: () => object, name: string, around: Around) {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof prop !== "string" || SKIPPED.has(prop) || typeof value !== "function")
        return value;
      return (...args: unknown[]) => {
        const call = {
          name: `${name}.${prop}`,
          repeatable: prop !== "fetch" && repeatableArgs(args),
        };
        return around(call, (attempt) => {
          const on = attempt > 1 ? make() : target;
          // Reflect: an RPC method stub answers every property, `apply` included.
          return Reflect.apply(Reflect.get(on, prop, on), on, args);
        });
      };
    },
  });
}

const D1_RUNS = new Set(["first", "run", "all", "raw"]);

/** The inner statement of a wrapped one, for `batch` (which takes only the runtime's own). */
const inners = new WeakMap<object, D1PreparedStatement>();

function aroundStatement(statement: D1PreparedStatement, around: Around): D1PreparedStatement {
  const proxy = new Proxy(statement, {
    get(target, prop) {
      if (prop === "bind")
        return (...values: unknown[]) => aroundStatement(target.bind(...values), around);
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || !D1_RUNS.has(prop)) return value.bind(target);
      return (...args: unknown[]) =>
        around({ name: "d1", repeatable: true }, () => Reflect.apply(value, target, args));
    },
  });
  inners.set(proxy, statement);
  return proxy;
}

/** `db` with every statement, batch and exec through `around`, named `d1`. */
export function aroundD1(db: D1Database, around: Around): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => aroundStatement(target.prepare(sql), around);
      if (prop === "batch")
        return (batch: D1PreparedStatement[]) =>
          around({ name: "d1", repeatable: true }, () =>
            target.batch(batch.map((s) => inners.get(s) ?? s)),
          );
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "exec") return value.bind(target);
      return (...args: unknown[]) =>
        around({ name: "d1", repeatable: true }, () => Reflect.apply(value, target, args));
    },
  });
}

/** `bucket` with every operation through `around`, named `r2.<op>`. */
export function aroundR2(bucket: R2Bucket, around: Around): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      return (...args: unknown[]) =>
        around({ name: `r2.${prop}`, repeatable: repeatableArgs(args) }, () =>
          Reflect.apply(value, target, args),
        );
    },
  });
}

/**
 * `env` with its Durable Object namespaces, its D1 database (`DB`) and R2 bucket (`FILES`) seen
 * through `around` (a new object of the same type; `env` itself is untouched).
 */
export function aroundBindings<E extends { DB?: D1Database; FILES?: R2Bucket }>(
  env: E,
  around: Around,
): E {
  const wrapped: E = { ...env };
  for (const [binding, name] of Object.entries(OBJECT_CALL_NAMES)) {
    const ns: unknown = Reflect.get(env, binding);
    if (typeof ns === "object" && ns !== null)
      Reflect.set(wrapped, binding, aroundNamespace(ns, name, around));
  }
  if (env.DB) Reflect.set(wrapped, "DB", aroundD1(env.DB, around));
  if (env.FILES) Reflect.set(wrapped, "FILES", aroundR2(env.FILES, around));
  return wrapped;
}
