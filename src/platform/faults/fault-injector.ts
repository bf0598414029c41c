/**
 * The fault injector, for dev and tests (never in a deployed build: `scripts/deploy.ts --check`
 * refuses a config that sets `FAULTS`, and a deployed Worker has no `CF_PLAN`, without which the
 * injector is not even installed). Its rules (fault-spec.ts) come from the `FAULTS` var, read
 * once per isolate, or from a test ({@link setFaults}); each call that a rule targets is hit with
 * the rule's rate, at three seams:
 *
 * - the bindings (platform/bindings.ts, innermost, below the retries and the limit guard): an
 *   object's calls, D1 and R2 fail before the call (`error`), lose the answer after it (`lost`),
 *   are refused as overloaded, or answer late;
 * - the objects themselves ({@link injectResets}, from HarnessObject): `reset` aborts the object
 *   as a call reaches it (`ctx.abort`), as a deploy or a crash would: its memory is gone, its
 *   calls in flight fail;
 * - global `fetch` to the Messages API (`…/v1/messages`): `model` faults answer with a status,
 *   drop the connection (`error`), or answer late.
 *
 * Hits are counted by rule target and kind ({@link faultCounts}) for the chaos bench.
 */
import type { Around } from "../binding-calls.ts";
import { type FaultKind, type FaultRule, parseFaults, targets } from "./fault-spec.ts";

let rules: FaultRule[] = [];
let fromEnv: string | undefined;
const hits = new Map<FaultRule, number>();

/** Uses `spec`'s rules from now on in this isolate (a test's; null: none). */
export function setFaults(spec: string | null): void {
  rules = parseFaults(spec ?? "");
  hits.clear();
}

/** Reads `FAULTS` of `env` (once per distinct value; unset or empty changes nothing). */
export function faultsFromEnv(env: object): void {
  const text: unknown = Reflect.get(env, "FAULTS");
  if (typeof text !== "string" || text === "" || text === fromEnv) return;
  fromEnv = text;
  setFaults(text ?? null);
}

/** The hits so far, as `target:kind` -> count. */
export function faultCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [rule, n] of hits) {
    const kind = rule.kind.type === "status" ? String(rule.kind.status) : rule.kind.type;
    const key = `${rule.target}:${kind}`;
    counts[key] = (counts[key] ?? 0) + n;
  }
  return counts;
}

/** The fault that hits the call named `name` now, if one does (counted). */
export function faultFor(name: string, only?: (kind: FaultKind) => boolean): FaultKind | null {
  for (const rule of rules) {
    if (!targets(rule, name) || (only && !only(rule.kind))) continue;
    const n = hits.get(rule) ?? 0;
    if (rule.times !== null && n >= rule.times) continue;
    if (Math.random() >= rule.rate) continue;
    hits.set(rule, n + 1);
    return rule.kind;
  }
  return null;
}

/** An error as the platform throws for a dropped connection: marked retryable. */
function lostConnection(name: string): Error {
  return Object.assign(new Error(`Network connection lost. (fault injected into ${name})`), {
    retryable: true,
  });
}

function overloaded(name: string): Error {
  return Object.assign(
    new Error(`Durable Object is overloaded. Too many requests queued. (fault injected: ${name})`),
    { overloaded: true },
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The injector as an observer of binding calls (objects' resets are injected in the object). */
export const injectFaults: Around = (call, run) => {
  if (rules.length === 0) return run(1);
  const fault = faultFor(call.name, (kind) => kind.type !== "reset");
  if (!fault) return run(1);
  switch (fault.type) {
    case "error":
      return Promise.reject(lostConnection(call.name));
    case "overloaded":
      return Promise.reject(overloaded(call.name));
    case "lost":
      return Promise.resolve(run(1)).then(() => Promise.reject(lostConnection(call.name)));
    case "delay":
      return sleep(fault.ms).then(() => run(1));
    default:
      return run(1);
  }
};

/** Object labels whose calls are named otherwise (the user object's binding is USERS). */
const CALL_NAME_OF_LABEL: Readonly<Record<string, string>> = { user: "users" };

const patchedClasses = new WeakSet<object>();

/**
 * Lets `reset` rules reach the object `object` (its class below `base`, labeled `label`): as one
 * of its methods is called from outside, a hit aborts the object (`ctx.abort`) before the method
 * runs. Once per class; each call consults the rules of the moment.
 */
export function injectResets(object: object, base: object, label: string): void {
  const name = CALL_NAME_OF_LABEL[label] ?? label;
  for (
    let proto = Object.getPrototypeOf(object);
    proto && proto !== base;
    proto = Object.getPrototypeOf(proto)
  ) {
    if (patchedClasses.has(proto)) break;
    patchedClasses.add(proto);
    for (const method of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, method);
      const value = descriptor?.value;
      if (method === "constructor" || method === "open" || typeof value !== "function") continue;
      Object.defineProperty(proto, method, {
        ...descriptor,
        value: function (this: { ctx: DurableObjectState }, ...args: unknown[]) {
          if (rules.length > 0 && faultFor(`${name}.${method}`, (k) => k.type === "reset"))
            this.ctx.abort(`fault injected: ${name}.${method} reset the object`);
          return Reflect.apply(value, this, args);
        },
      });
    }
  }
}

let fetchPatched = false;

/** Injects `model` faults into global `fetch` calls to the Messages API (once per isolate). */
export function injectModelFaults(): void {
  if (fetchPatched) return;
  fetchPatched = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const fault = rules.length > 0 && url.includes("/v1/messages") ? faultFor("model") : null;
    if (!fault) return original(input, init);
    if (fault.type === "delay") await sleep(fault.ms);
    else if (fault.type === "status") return modelError(fault.status);
    else if (fault.type === "overloaded") return modelError(529);
    else throw lostConnection("model");
    return original(input, init);
  };
}

/** The Messages API's error answer of `status`. */
function modelError(status: number): Response {
  const type =
    status === 529 ? "overloaded_error" : status === 429 ? "rate_limit_error" : "api_error";
  const body = { type: "error", error: { type, message: `fault injected: HTTP ${status}` } };
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json",
      ...(status === 429 ? { "retry-after": "1" } : {}),
    },
  });
}
