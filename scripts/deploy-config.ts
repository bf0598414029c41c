/**
 * The Worker configuration `npm run deploy` uploads, derived from wrangler.toml for a Workers plan:
 * the Worker Loader binding (run_code) only on Workers Paid, where Dynamic Workers exist; the
 * every-minute cron only when SCHEDULES has entries; no var whose value is the code's own default
 * (src/config/env-schema.ts: the Worker reads an absent var as its default, so it behaves the same
 * with fewer variables, and Workers Free allows 64); never `CF_PLAN` (the local limit guard); and a
 * config that sets `FAULTS` (the fault injector) or turns `SCRIPTED_MODEL` on (the scripted model),
 * dev and tests only, is refused outright.
 * Pure: the raw config in, a new one out, with one line per choice made. Also the plan limits the build check holds each configuration to.
 */
import type { Unstable_RawConfig as RawConfig } from "wrangler";
import { configSchema } from "../src/config/env-schema.ts";

/** A Workers plan and the limits of it that a deploy can break (developers.cloudflare.com). */
export interface Plan {
  label: string;
  /** Dynamic Workers (the Worker Loader binding) are on Workers Paid only. */
  workerLoader: boolean;
  /** Environment variables, vars and secrets together, per Worker. */
  maxVariables: number;
  /** Worker size after compression. */
  maxGzipBytes: number;
}

/**
 * Throws when `raw` turns on what is for dev and tests only, never for a deployed Worker
 * (`--check`, `--dry-run` and a deploy all stop here): the fault injector (`FAULTS`,
 * src/platform/faults/), and the scripted model (`SCRIPTED_MODEL` other than `off`,
 * src/model/scripted/), which the deployed bundle leaves out (scripts/bundle-worker.ts).
 */
export function refuseDevOnly(raw: RawConfig): void {
  const faults = raw.vars?.FAULTS;
  if (faults !== undefined && !(typeof faults === "string" && faults.trim() === ""))
    throw new Error(
      `FAULTS is set (${JSON.stringify(faults)}): the fault injector is for dev and tests only; a deployed Worker must not have it. Empty FAULTS in wrangler.toml's [vars].`,
    );
  const scripted = raw.vars?.SCRIPTED_MODEL;
  if (scripted !== undefined && scripted !== "off")
    throw new Error(
      `SCRIPTED_MODEL is ${JSON.stringify(scripted)}: the scripted model is for npm run dev and tests only and is not in the deployed Worker; a deployed Worker answers with Claude (ANTHROPIC_API_KEY). Set SCRIPTED_MODEL = "off" in wrangler.toml's [vars].`,
    );
}

/** The plans `npm run deploy -- --plan <name>` knows. */
export const PLANS = {
  free: {
    label: "Workers Free",
    workerLoader: false,
    maxVariables: 64,
    maxGzipBytes: 3 * 1024 * 1024,
  },
  paid: {
    label: "Workers Paid",
    workerLoader: true,
    maxVariables: 128,
    maxGzipBytes: 10 * 1024 * 1024,
  },
} satisfies Record<string, Plan>;

/** A plan's name. */
export type PlanName = keyof typeof PLANS;

/** The cron that runs SCHEDULES. */
export const SCHEDULES_CRON = "* * * * *";

/** How many scheduled runs a SCHEDULES value declares (0 when empty or unreadable). */
export function scheduleCount(value: unknown): number {
  try {
    const parsed: unknown = typeof value === "string" ? JSON.parse(value || "{}") : value;
    return parsed && typeof parsed === "object" ? Object.keys(parsed).length : 0;
  } catch {
    return 0;
  }
}

/**
 * The configuration to deploy on `plan`, written to a file in `outDir` (relative to the project
 * root, which holds wrangler.toml): the paths it names are rewritten to stay right from there.
 */
export function deployConfig(
  raw: RawConfig,
  planName: PlanName,
  outDir: string,
): { config: RawConfig; notes: string[] } {
  const plan = PLANS[planName];
  refuseDevOnly(raw);
  const config = structuredClone(raw);
  const back = outDir
    .split("/")
    .filter(Boolean)
    .map(() => "..")
    .join("/");
  const fromOut = (path: string) => `${back}/${path}`;
  if (config.main) config.main = fromOut(config.main);
  if (config.assets?.directory) config.assets.directory = fromOut(config.assets.directory);
  for (const db of config.d1_databases ?? [])
    if (db.migrations_dir) db.migrations_dir = fromOut(db.migrations_dir);
  const notes: string[] = [];

  if (!plan.workerLoader && config.worker_loaders?.length) {
    delete config.worker_loaders;
    notes.push(
      "run_code: off (Dynamic Workers need Workers Paid; npm run deploy -- --plan paid turns it on)",
    );
  } else if (config.worker_loaders?.length) notes.push("run_code: on (Worker Loader binding)");

  // Empty (refused otherwise, above): nothing to upload.
  if (config.vars && "FAULTS" in config.vars) delete config.vars.FAULTS;
  if (config.vars?.CF_PLAN) {
    delete config.vars.CF_PLAN;
    notes.push("CF_PLAN: left out (the local limit guard; Cloudflare enforces its own limits)");
  }
  const { vars, dropped } = withoutDefaults(config.vars ?? {});
  config.vars = vars;
  if (dropped > 0) notes.push(`${dropped} vars left out: their values are the defaults`);

  const schedules = scheduleCount(config.vars?.SCHEDULES);
  const crons = (config.triggers?.crons ?? []).filter((c) => c !== SCHEDULES_CRON);
  if (schedules > 0) {
    crons.push(SCHEDULES_CRON);
    notes.push(
      `schedules: ${schedules}, run by an every-minute cron (1,440 invocations a day, each a Worker request)`,
    );
  } else notes.push("schedules: none, so no every-minute cron");
  config.triggers = { ...config.triggers, crons };
  return { config, notes };
}

/** `vars` without those whose value the Worker would read as its default anyway. */
export function withoutDefaults(vars: NonNullable<RawConfig["vars"]>): {
  vars: NonNullable<RawConfig["vars"]>;
  dropped: number;
} {
  const defaults = configSchema().parse({}) as Record<string, unknown>;
  const same = (key: string, value: unknown) => {
    if (!Object.hasOwn(configSchema().shape, key)) return false;
    const parsed = configSchema().safeParse({ [key]: value });
    return (
      parsed.success &&
      JSON.stringify((parsed.data as Record<string, unknown>)[key]) ===
        JSON.stringify(defaults[key])
    );
  };
  const kept = Object.entries(vars).filter(([key, value]) => !same(key, value));
  return { vars: Object.fromEntries(kept), dropped: Object.keys(vars).length - kept.length };
}
