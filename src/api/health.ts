/**
 * `GET /health` (public, shallow) and `GET /health/deep` (admins): D1, R2 and a Durable Object
 * round trip, the model's reachability (Claude through the API, or the scripted model), and every
 * remote A2A agent, each with its time, in parallel, three seconds at most each. 503 when a
 * storage check, the model, or a distributed sub-agent fails.
 */
import type { Context } from "hono";
import { loadConfig } from "../config/config.ts";
import { modelClient } from "../model/client.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { remoteReachability } from "../remote/health.ts";
import { userObject } from "../users/limits.ts";

const TIMEOUT_MS = 3_000;

/** One check's result. */
export interface Check {
  ok: boolean;
  ms: number;
  detail?: string;
}

async function timed(fn: () => Promise<string | undefined>): Promise<Check> {
  const started = Date.now();
  try {
    const detail = await Promise.race([
      fn(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer in ${TIMEOUT_MS} ms`)), TIMEOUT_MS),
      ),
    ]);
    return { ok: true, ms: Date.now() - started, ...(detail ? { detail } : {}) };
  } catch (error) {
    return {
      ok: false,
      ms: Date.now() - started,
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}

/** The deep health check. */
export async function deepHealth(c: Context<AppEnv>): Promise<Response> {
  const config = loadConfig(c.env);
  const [d1, r2, durableObject, model, agents] = await Promise.all([
    timed(async () => {
      await c.env.DB.prepare("SELECT 1").first();
      return undefined;
    }),
    timed(async () => {
      await c.env.FILES.head("health/probe");
      return undefined;
    }),
    timed(async () => {
      await userObject(c.env, "health").usage();
      return undefined;
    }),
    timed(async () => {
      if (config.modelMode === "unconfigured") throw new Error("no ANTHROPIC_API_KEY");
      if (config.modelMode === "scripted") return "scripted local model";
      await modelClient(config).models.list({ limit: 1 });
      return "Anthropic Messages API";
    }),
    remoteReachability(c),
  ]);
  const ok =
    d1.ok &&
    r2.ok &&
    durableObject.ok &&
    model.ok &&
    agents.every((a) => a.reachable || !a.distributed);
  return c.json(
    {
      ok,
      checks: { d1, r2, durableObject, model },
      distributed: config.network.distributed,
      agents,
    },
    ok ? 200 : 503,
  );
}
