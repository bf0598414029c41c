/**
 * The child's end of a delegation, inside a sub-agent's task object: reporting to the parent
 * task each time the task settles, from the schedule so the report survives restarts and is
 * retried until the parent has it, and relaying the task's harness events to the parent's stream
 * (best effort). A task without a parent task does nothing here.
 */

import { log } from "../../platform/logging.ts";
import { stubByName } from "../../platform/object-stub.ts";
import { partsText } from "../../protocol/parts.ts";
import { isSettled } from "../../protocol/task-states.ts";
import type { TaskState } from "../runtime/task-state.ts";
import type { ChildReport } from "../store/children.ts";

/** Schedule id of the retried report to the parent. */
export const PARENT_REPORT_JOB = "parent:report";

/** What the report reads from the task. */
export type ReportingTask = Pick<TaskState, "store" | "loopState" | "hookState" | "scheduler">;

/** Reports a sub-agent's task to its parent task. */
export class ParentReport {
  readonly #task: ReportingTask;
  readonly #tasks: Env["TASKS"];

  constructor(task: ReportingTask, tasks: Env["TASKS"]) {
    this.#task = task;
    this.#tasks = tasks;
  }

  #parent(parentTaskId: string) {
    return stubByName(this.#tasks, parentTaskId);
  }

  /** Schedules a report to the parent (the task just settled). */
  async schedule(): Promise<void> {
    if (this.#task.store.record?.parentTaskId)
      await this.#task.scheduler.schedule(PARENT_REPORT_JOB, "context", Date.now());
  }

  /** Sends the current report to the parent; retried until it arrives. */
  async send(): Promise<void> {
    const task = this.#task;
    const record = task.store.record;
    if (!record?.parentTaskId) return;
    const loop = task.loopState.get();
    const waiting =
      record.state === "TASK_STATE_INPUT_REQUIRED" || record.state === "TASK_STATE_AUTH_REQUIRED";
    const report: ChildReport = {
      state: record.state,
      text:
        record.state === "TASK_STATE_COMPLETED"
          ? loop.answerText.trim()
          : partsText(record.status.message?.parts),
      ...(waiting && record.status.message ? { question: record.status.message.parts } : {}),
      usage: loop.usage,
      version: record.version,
    };
    try {
      await this.#parent(record.parentTaskId).childReport({
        owner: record.owner,
        childTaskId: record.id,
        report,
      });
    } catch (error) {
      log("warn", "parent report retry", { task: record.id, error: String(error) });
      await task.scheduler.retry(PARENT_REPORT_JOB, "context");
      return;
    }
    task.hookState.set("lineage", "reportedVersion", report.version);
    await task.scheduler.done(PARENT_REPORT_JOB);
  }

  /** After a restart: whether the parent may not have the latest report. */
  owed(): boolean {
    const record = this.#task.store.record;
    if (!record?.parentTaskId || !isSettled(record.state)) return false;
    return (this.#task.hookState.get<number>("lineage", "reportedVersion") ?? 0) < record.version;
  }

  /** Relays a harness event's text to the parent's stream (best effort, not retried). */
  async relayProgress(text: string): Promise<void> {
    const record = this.#task.store.record;
    if (!record?.parentTaskId) return;
    await this.#parent(record.parentTaskId).childProgress({
      owner: record.owner,
      childTaskId: record.id,
      agent: record.agent,
      text,
    });
  }
}
