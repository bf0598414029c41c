/**
 * The bindings every entrypoint (the Worker, each Durable Object) hands on, from the inside out:
 * `env` with the fault injector's faults (FAULTS, dev and tests only: installed only with
 * CF_PLAN, which a deployed Worker never has; platform/faults/), seen through the storage meter
 * (STORAGE_METER: counts and times, platform/storage-meter.ts), the local limit guard (CF_PLAN:
 * Cloudflare's limits, platform/limit-guard.ts) and, outermost, the retries of transient failures
 * (always; platform/retry.ts), so a retry is counted and timed as the call it repeats. The meter,
 * the guard and the injector are off on a deployed Worker.
 */
import { aroundBindings } from "./binding-calls.ts";
import { faultsFromEnv, injectFaults, injectModelFaults } from "./faults/fault-injector.ts";
import { guardedEnv, guardPlan } from "./limit-guard.ts";
import { retryTransient } from "./retry.ts";
import { meteredEnv } from "./storage-meter.ts";

/** `env` with faults injected into its bindings, when the limit guard (dev, tests) is on. */
function faultyEnv<E extends { DB?: D1Database; FILES?: R2Bucket }>(env: E): E {
  if (!guardPlan(env)) return env;
  faultsFromEnv(env);
  injectModelFaults();
  return aroundBindings(env, injectFaults);
}

const seen = new WeakMap<object, object>();

/** `env` as the harness's code sees it (the same object for the same `env`). */
export function platformEnv<E extends object>(env: E): E {
  const hit = seen.get(env);
  if (hit) return hit as E;
  const wrapped = aroundBindings(guardedEnv(meteredEnv(faultyEnv(env))), retryTransient);
  seen.set(env, wrapped);
  return wrapped;
}
