/**
 * The bindings every entrypoint (the Worker, each Durable Object) hands on: `env` seen through
 * the storage meter (STORAGE_METER: counts and times, platform/storage-meter.ts) and, around it,
 * the local limit guard (CF_PLAN: Cloudflare's limits, platform/limit-guard.ts). Both are off on a
 * deployed Worker, and then this is `env` itself.
 */
import { guardedEnv } from "./limit-guard.ts";
import { meteredEnv } from "./storage-meter.ts";

/** `env` as the harness's code sees it (the same object for the same `env`). */
export function platformEnv<E extends object>(env: E): E {
  return guardedEnv(meteredEnv(env));
}
