/**
 * Scheduled runs (`SCHEDULES`): on each minute of the Worker's cron trigger, every schedule whose
 * cron expression matches that minute (in its time zone) starts a task as its owner. A tick runs
 * once however many isolates the trigger fires in: the task's message id is derived from
 * (schedule, tick), so every attempt reaches the same task object, and the run row's primary key
 * (schedule, tick) records it once.
 */
import { Cron } from "croner";
import { loadConfig } from "../config/config.ts";
import { log } from "../platform/logging.ts";
import { startTriggeredTask, TriggerSetupError } from "./start-task.ts";
import { type ScheduleConfig, schedules } from "./trigger-config.ts";

/** What one tick did for one schedule. */
export interface ScheduleRun {
  schedule: string;
  tick: string;
  taskId: string | null;
  /** False when another isolate (or an earlier attempt) already recorded this tick. */
  first: boolean;
  error?: string;
}

/** The cron of a schedule, in its time zone. */
export function cronOf(schedule: ScheduleConfig, defaultZone: string): Cron {
  return new Cron(schedule.cron, { timezone: schedule.timeZone ?? defaultZone, paused: true });
}

/** Runs the schedules due at `scheduledTime` (the cron event's time). */
export async function runSchedules(env: Env, scheduledTime: number): Promise<ScheduleRun[]> {
  const tickMs = Math.floor(scheduledTime / 60_000) * 60_000;
  const tick = new Date(tickMs).toISOString();
  const zone = loadConfig(env).timeZone;
  const due = Object.values(schedules(env)).filter((s) => cronOf(s, zone).match(new Date(tickMs)));
  return Promise.all(due.map((s) => runOne(env, s, tick)));
}

async function runOne(env: Env, schedule: ScheduleConfig, tick: string): Promise<ScheduleRun> {
  let taskId: string | null = null;
  let error: string | undefined;
  try {
    const task = await startTriggeredTask(env, {
      agent: schedule.agent,
      owner: schedule.owner,
      text: schedule.prompt
        .replaceAll("{{$time}}", tick)
        .replaceAll("{{$schedule}}", schedule.name),
      messageId: `schedule-${schedule.name}-${tick}`,
      metadata: { trigger: { kind: "schedule", name: schedule.name, tick } },
      ...(schedule.push ? { push: schedule.push } : {}),
    });
    taskId = task.id;
  } catch (cause) {
    error = cause instanceof Error ? cause.message : String(cause);
    if (!(cause instanceof TriggerSetupError))
      log("error", "schedule failed", { schedule: schedule.name, tick, error });
  }
  const result = await env.DB.prepare(
    `INSERT OR IGNORE INTO schedule_runs (schedule, tick, task_id, agent, owner, started_at, error)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      schedule.name,
      tick,
      taskId,
      schedule.agent,
      schedule.owner,
      new Date().toISOString(),
      error ?? null,
    )
    .run();
  const first = result.meta.changes === 1;
  if (first)
    log(error ? "error" : "info", "scheduled run", {
      schedule: schedule.name,
      tick,
      taskId,
      error,
    });
  return { schedule: schedule.name, tick, taskId, first, ...(error ? { error } : {}) };
}
