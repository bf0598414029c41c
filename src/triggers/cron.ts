/**
 * What the Worker's cron trigger does (wrangler.toml [triggers]), in one place for the
 * `scheduled` handler and the admin route that runs it on demand: the daily retention sweep for
 * its cron expression (its first pass; the sweep's object runs the rest), the scheduled runs
 * (`SCHEDULES`) due at the tick for any other.
 *   POST /api/admin/cron   { cron? }: runs the cron trigger's work now (the scheduled runs due
 *                          this minute by default, or the retention sweep's first pass for its
 *                          expression: `{ swept, more }`)
 */
import { Hono } from "hono";
import { z } from "zod";
import { authenticate, requireAdmin } from "../auth/middleware.ts";
import { invalidInput } from "../platform/http-error.ts";
import { jsonBodyOrEmpty } from "../platform/json-body.ts";
import { RETENTION_CRON, type SweepPass, sweepAndContinue } from "../privacy/retention.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { lazy } from "../utils/lazy.ts";
import { runSchedules, type ScheduleRun } from "./schedules.ts";

/** What one cron event did. */
export type CronResult =
  | ({ cron: string } & Pick<SweepPass, "swept" | "more">)
  | { cron: string; runs: ScheduleRun[] };

/** Runs what the cron expression `cron` stands for at `scheduledTime` (ms). */
export async function runCron(env: Env, cron: string, scheduledTime: number): Promise<CronResult> {
  if (cron === RETENTION_CRON) {
    const { swept, more } = await sweepAndContinue(env, scheduledTime);
    return { cron, swept, more };
  }
  return { cron, runs: await runSchedules(env, scheduledTime) };
}

const cronRun = lazy(() =>
  z.strictObject({ cron: z.string().trim().min(1).max(100).default("* * * * *") }),
);

/** The admin route that runs the cron trigger's work on demand. */
export function cronRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/api/admin/cron", authenticate(), requireAdmin(), async (c) => {
    const parsed = cronRun().safeParse(await jsonBodyOrEmpty(c.req.raw));
    if (!parsed.success) throw invalidInput(parsed.error);
    return c.json(await runCron(c.env, parsed.data.cron, Date.now()));
  });
  return app;
}
