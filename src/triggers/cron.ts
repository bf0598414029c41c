/**
 * What the Worker's cron trigger does (wrangler.toml [triggers]), in one place for the
 * `scheduled` handler and the admin route that runs it on demand: the daily retention sweep for
 * its cron expression, the scheduled runs (`SCHEDULES`) due at the tick for any other.
 */
import { RETENTION_CRON, sweepExpired } from "../api/retention.ts";
import { runSchedules, type ScheduleRun } from "./schedules.ts";

/** What one cron event did. */
export type CronResult = { cron: string; swept: number } | { cron: string; runs: ScheduleRun[] };

/** Runs what the cron expression `cron` stands for at `scheduledTime` (ms). */
export async function runCron(env: Env, cron: string, scheduledTime: number): Promise<CronResult> {
  if (cron === RETENTION_CRON) return { cron, swept: await sweepExpired(env, scheduledTime) };
  return { cron, runs: await runSchedules(env, scheduledTime) };
}
