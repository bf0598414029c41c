/**
 * How a task object is put together, and what its alarm runs. {@link wireTask} builds the
 * runtime (the task's state and its one status change) and the parts that act on it, each given
 * only what it uses, and is the one place that subscribes to what the runtime announces: a
 * status change queues its push deliveries in its own unit of work; once it committed, it wakes
 * push delivery and the outbox, and when the task settles it closes the streams, wakes the
 * waiters, releases the conversation (ContextMembership), reports to a parent task
 * (ParentReport) and schedules retention; a harness event goes to the parent's stream. The loop
 * driver and delegation to sub-agents (ChildTasks, given the transport of local children) are
 * built here too. {@link jobFor} is the
 * table of scheduled jobs, {@link runDueJobs} the alarm's run of them (a job that throws is
 * retried with backoff, then dropped); {@link recover} what a fresh instance schedules after a
 * restart.
 */
import { isAnonymousOwner } from "../auth/anonymous.ts";
import { loadConfig, retentionDaysFor } from "../config/config.ts";
import { log } from "../platform/logging.ts";
import { isSettled, isTerminal } from "../protocol/task-states.ts";
import { PUSH_HISTORY_LENGTH, pushBody } from "../push/push-payload.ts";
import { PUSH_JOB } from "../push/push-sender.ts";
import { deletePrefix } from "../store/r2-prefix.ts";
import type { ScheduleEntry, Scheduler } from "../store/scheduler.ts";
import type { Schema } from "../store/sqlite-migrations.ts";
import type { LocalTransportFor } from "../subagents/transport.ts";
import { CANCEL_CHILDREN_JOB, ChildTasks, POLL_REMOTE_JOB } from "./children/child-tasks.ts";
import { PARENT_REPORT_JOB, ParentReport } from "./children/parent-report.ts";
import {
  ContextMembership,
  JOIN_JOB,
  REGISTER_JOB,
  RELEASE_JOB,
} from "./conversation/context-membership.ts";
import type { Listener, StatusChange } from "./runtime/status-change.ts";
import { TaskRuntime } from "./runtime/task-runtime.ts";
import { LoopDriver } from "./steps/loop-driver.ts";
import { taskSchema } from "./store/schema.ts";
import { exportAtEnd } from "./task-spans.ts";

/** Schedule id of the job that erases an ended task when RETENTION_DAYS have passed. */
export const RETENTION_JOB = "retention";

/** A task object's runtime and the parts wired to it. */
export interface TaskParts {
  /** The task's tables: absent until a task is created (or after an erasure). */
  schema: Schema;
  runtime: TaskRuntime;
  children: ChildTasks;
  parentReport: ParentReport;
  membership: ContextMembership;
  driver: LoopDriver;
}

/**
 * Opens a task object's storage, builds its parts and subscribes them to the runtime. A database
 * without the task's tables (a new object, or an erased one) is left so: every store starts
 * empty, reading nothing, until `schema.ensure()` before the task's creation.
 */
export function wireTask(
  ctx: DurableObjectState,
  env: Env,
  localChildren: LocalTransportFor,
): TaskParts {
  const schema = taskSchema(ctx.storage.sql);
  const runtime = new TaskRuntime(ctx, env, !schema.stored);
  const children = new ChildTasks(runtime, env, localChildren);
  const parentReport = new ParentReport(runtime, env.TASKS);
  const membership = new ContextMembership(runtime, env.CONTEXTS);
  const driver = new LoopDriver(runtime, children, env);
  announceStatus(runtime, membership, parentReport, env);
  // A sub-agent's progress also shows on its parent's stream (best effort).
  runtime.onHarnessEvent((event) =>
    event.kind === "tool_result" || !runtime.store.record?.parentTaskId
      ? undefined
      : parentReport.relayProgress(event.text),
  );
  return { schema, runtime, children, parentReport, membership, driver };
}

/**
 * Subscribes what follows a status change, in order: the push queue (written with the change),
 * then, after the commit, push delivery, the index row, and for a settled task the conversation's
 * release, the parent's report, retention, the streams' end, the waiters and (ended) the export
 * of its artifacts and of its spans (OTLP, when on).
 */
function announceStatus(
  runtime: TaskRuntime,
  membership: ContextMembership,
  parentReport: ParentReport,
  env: Env,
): void {
  runtime.onStatusWrite(({ from, state, event }) => {
    const configs = from === state ? [] : runtime.push.configs();
    if (configs.length === 0) return;
    const task = runtime.snapshot(PUSH_HISTORY_LENGTH);
    const bodies = configs.map((config) => ({
      config,
      ...pushBody(config.protocol, task, event, isSettled(state)),
    }));
    runtime.push.enqueue(state, bodies, Date.now());
    runtime.unit.afterCommit(() => runtime.background(runtime.pushSender.wake()));
  });
  runtime.onStatusChange(({ from, state }) =>
    from === state ? undefined : runtime.outbox.syncIndex(),
  );
  const settled = (listener: Listener<StatusChange>) =>
    runtime.onStatusChange((change) => (isSettled(change.state) ? listener(change) : undefined));
  settled(({ releaseAfter }) => releaseAfter.then(() => membership.release()));
  settled(() => parentReport.schedule());
  settled(() => {
    runtime.grant.release(); // a budget grant no model call took
    return undefined;
  });
  settled(({ state }) => {
    const owner = runtime.store.record?.owner ?? "";
    const days = retentionDaysFor(loadConfig(env), isAnonymousOwner(owner));
    if (!isTerminal(state) || days <= 0) return undefined;
    return runtime.scheduler.schedule(RETENTION_JOB, "retention", Date.now() + days * 86_400_000);
  });
  settled(() => {
    runtime.subscribers.closeAll();
    runtime.waiters.wake();
    return undefined;
  });
  runtime.onStatusChange(({ state }) =>
    isTerminal(state) ? runtime.outbox.exportArtifacts() : undefined,
  );
  // Its spans go to the OTLP collector once it ends (export on; task-spans.ts).
  runtime.onStatusChange(({ state }) => exportAtEnd(runtime, loadConfig(env), env.DB, state));
}

/** A scheduled job. */
export type Job = (entry: ScheduleEntry) => Promise<void>;

/** What the jobs need of the task object itself. */
export interface JobOwner {
  /** Takes the conversation's turn if it has come (see TaskObject.activate). */
  activate(): Promise<void>;
  /** Erases the task and all of its data (its parts are rebuilt: the alarm's run ends). */
  erase(): Promise<void>;
}

/** The table of a task object's jobs: the job for a due entry (by kind, then by id), or null. */
export function jobFor(parts: TaskParts, owner: JobOwner): (entry: ScheduleEntry) => Job | null {
  const { runtime, children, parentReport, membership, driver } = parts;
  const byKind = new Map<string, Job>([
    ["loop", () => driver.step()],
    ["outbox", (entry) => runtime.outbox.retry(entry.id)],
  ]);
  const byId = new Map<string, Job>([
    [PUSH_JOB, () => runtime.pushSender.deliverDue()],
    [JOIN_JOB, () => owner.activate()],
    [RELEASE_JOB, () => membership.release()],
    [REGISTER_JOB, () => membership.register()],
    [PARENT_REPORT_JOB, () => parentReport.send()],
    [CANCEL_CHILDREN_JOB, () => children.cancelChildren()],
    [
      POLL_REMOTE_JOB,
      async () => {
        if (await children.pollRemote())
          await runtime.scheduler.schedule("loop", "loop", Date.now());
      },
    ],
    // Past RETENTION_DAYS: the task deletes its own data, then has nothing left to do.
    [RETENTION_JOB, () => owner.erase()],
  ]);
  return (entry) => byKind.get(entry.kind) ?? byId.get(entry.id) ?? null;
}

/**
 * Runs the due entries, earliest first, each by its job (an entry no job knows is dropped), then
 * points the alarm at the next one. `current`: false once a job erased the task (retention), so
 * nothing of the old schedule is left to run.
 */
export async function runDueJobs(
  scheduler: Scheduler,
  jobOf: (entry: ScheduleEntry) => Job | null,
  current: () => boolean,
): Promise<void> {
  for (const entry of scheduler.due(Date.now())) {
    const job = jobOf(entry);
    try {
      if (job) await job(entry);
      else await scheduler.cancel(entry.id);
    } catch (error) {
      await jobFailed(scheduler, entry, error);
    }
    if (!current()) return;
  }
  await scheduler.arm();
}

/** Runs of a job that keeps throwing after which it is dropped (its retries span about 2 minutes). */
export const JOB_ATTEMPTS = 10;

/**
 * After a job threw and left its entry due: the entry runs again with backoff (at once would
 * wake the object in a loop, for as long as the fault lasts) and is dropped, logged, once it
 * has counted {@link JOB_ATTEMPTS} attempts. An entry the job moved or removed stays as it is.
 */
async function jobFailed(
  scheduler: Scheduler,
  entry: ScheduleEntry,
  error: unknown,
): Promise<void> {
  const fields = { job: entry.id, error: String(error) };
  const left = scheduler.get(entry.id);
  if (!left || left.dueAt > Date.now()) return log("error", "alarm job failed", fields);
  const attempts = await scheduler.retry(entry.id, entry.kind);
  if (attempts < JOB_ATTEMPTS) return log("error", "alarm job failed", { ...fields, attempts });
  await scheduler.cancel(entry.id);
  log("error", "alarm job dropped: it failed every time", { ...fields, attempts });
}

/** After a restart: a task left in flight resumes now (no step of a fresh instance is running). */
export async function recover(parts: TaskParts): Promise<void> {
  const { runtime: rt, parentReport } = parts;
  const record = rt.store.record;
  const { state: link, alone } = rt.contextLink.get();
  if (record?.state === "TASK_STATE_SUBMITTED" && link === "none") {
    // It died before joining its conversation: join now (from the alarm).
    await rt.scheduler.schedule(JOIN_JOB, "context", Date.now());
    return;
  }
  if (
    record &&
    isSettled(record.state) &&
    !alone &&
    (link === "active" || link === "waiting") &&
    !rt.scheduler.get(RELEASE_JOB)
  ) {
    await rt.scheduler.schedule(RELEASE_JOB, "context", Date.now());
    return;
  }
  if (parentReport.owed() && !rt.scheduler.get(PARENT_REPORT_JOB))
    await rt.scheduler.schedule(PARENT_REPORT_JOB, "context", Date.now());
  const working = record?.state === "TASK_STATE_WORKING";
  // A conversation it holds may not have heard of it (a registration cut short): tell it again.
  if (working && link === "active" && !alone) rt.background(parts.membership.register());
  if (working && (rt.loopState.get().attempt === 0 || !rt.scheduler.get("loop"))) {
    await rt.scheduler.schedule("loop", "loop", Date.now());
    return;
  }
  await rt.scheduler.arm();
}

/** Deletes everything the task keeps: its R2 objects (artifacts, scratchpad) and its storage. */
export async function eraseStorage(
  parts: TaskParts,
  ctx: DurableObjectState,
  files: R2Bucket,
): Promise<void> {
  const record = parts.runtime.store.record;
  // A copy of the answer still on its way to R2 would outlive the erasure; work still writing
  // (the conversation's release, cancelling sub-agents) would write to storage erased under it.
  await Promise.all([parts.runtime.outbox.idle(), parts.runtime.work.idle()]);
  if (record) await deletePrefix(files, `tasks/${record.id}/`);
  parts.driver.stop();
  await ctx.storage.deleteAlarm();
  await ctx.storage.deleteAll();
}
