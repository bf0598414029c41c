/**
 * What the loop driver does with a step's outcome: the next step (now, later, or after a retry
 * with backoff, never past the task's time limit), or the task's end: completed (with the answer
 * artifact and, on its streams, the answer's echo; a limit's note, with what remains, as the
 * status message), failed (rolling the workspace
 * back when configured), waiting (for a person or a sub-agent; a sub-agent at most until the
 * task's time limit) or rejected (the agent's program, a budget, or the model declining the
 * request).
 * No task ends silently: a completed task whose model wrote no text gets an answer composed from
 * its records (work-summary.ts), a refused one the refusal's explanation as its status message.
 * An ending task asks the workspace for its end note (see task-end.ts).
 */

import { loadConfig } from "../../config/config.ts";
import { suspensionParts } from "../../loop/calls/suspension.ts";
import type { Suspension } from "../../loop/contracts.ts";
import type { StepOutcome } from "../../loop/step-types.ts";
import { REFUSAL_STOP_REASON, type Refusal } from "../../loop/turn/refusal.ts";
import { estimateCost } from "../../model/pricing.ts";
import { usageTokens } from "../../model/usage.ts";
import type { Part } from "../../protocol/wire.ts";
import { modelOfTask } from "../../trace/cost.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import type { ChildTasks } from "../children/child-tasks.ts";
import { queuedLive } from "../conversation/live-input.ts";
import { answerArtifact } from "../runtime/answer-artifact.ts";
import type { EventSink, StatusWriter } from "../runtime/status-change.ts";
import type { TaskState } from "../runtime/task-state.ts";
import { usesWorkspace } from "../store/environment-note.ts";
import { taskDeadline } from "../store/time-limit.ts";
import { remainingWork, rollBack, writeEndNote } from "./task-end.ts";
import { workSummary } from "./work-summary.ts";

/** The limits that end a task completed with what remains: stop reason -> event and default note. */
const LIMITS: Record<string, { kind: "turn_limit" | "time_limit"; note: string }> = {
  max_turns: { kind: "turn_limit", note: "The turn limit was reached." },
  time_limit: { kind: "time_limit", note: "The time limit was reached." },
};

/** What a step's end reads and changes in the task. */
export type EndingTask = Pick<
  TaskState,
  "unit" | "store" | "loopState" | "scheduler" | "agent" | "newOwner" | "hookState" | "contextLink"
> &
  StatusWriter &
  EventSink;

/** Applies step outcomes for one task object. */
export class StepEnd {
  readonly #task: EndingTask;
  readonly #children: Pick<ChildTasks, "settleWait">;
  readonly #env: Env;
  readonly #taskWorkspace: () => WorkspaceApi;

  constructor(
    task: EndingTask,
    children: Pick<ChildTasks, "settleWait">,
    env: Env,
    workspace: () => WorkspaceApi,
  ) {
    this.#task = task;
    this.#children = children;
    this.#env = env;
    this.#taskWorkspace = workspace;
  }

  /** Schedules the next step or ends (or pauses) the task as `outcome` says. */
  async apply(outcome: StepOutcome): Promise<void> {
    const { scheduler } = this.#task;
    switch (outcome.kind) {
      case "continue":
        await scheduler.schedule("loop", "loop", Date.now() + (outcome.afterMs ?? 0));
        return;
      case "retry": {
        const seconds = (outcome.delayMs / 1000).toFixed(1);
        this.#task.setStatus("TASK_STATE_WORKING", {
          text: `${outcome.reason}; retrying in ${seconds} s.`,
        });
        await scheduler.schedule(
          "loop",
          "loop",
          this.#beforeDeadline(Date.now() + outcome.delayMs),
        );
        return;
      }
      case "completed":
        await this.#complete(outcome.stopReason, outcome.note, outcome.message);
        return;
      case "failed":
        await this.fail(outcome.message);
        return;
      case "suspended":
        await this.#suspend(outcome.suspension);
        return;
      case "input-required":
        await this.#pause(
          outcome.authorization ? "TASK_STATE_AUTH_REQUIRED" : "TASK_STATE_INPUT_REQUIRED",
          outcome.message,
        );
        return;
      case "rejected":
        await this.#pause("TASK_STATE_REJECTED", outcome.message);
        return;
      case "refused":
        await this.#refuse(outcome.refusal);
        return;
      case "budget":
        await this.#overBudget(outcome.message);
        return;
      case "aborted":
        return;
    }
  }

  async #complete(stopReason: string, note: string | undefined, parts?: Part[]): Promise<void> {
    const task = this.#task;
    let text = note;
    const limit = Object.hasOwn(LIMITS, stopReason) ? LIMITS[stopReason] : undefined;
    if (limit) {
      const workspace = this.#workspace();
      const remaining = workspace ? await remainingWork(workspace) : [];
      text = `${note ?? limit.note} ${
        remaining.length > 0
          ? `Still to do (from PROGRESS.json):\n${remaining.map((r) => `- ${r}`).join("\n")}`
          : "PROGRESS.json lists nothing remaining."
      }`;
      this.#task.emitHarnessEvent({
        kind: limit.kind,
        text: note ?? limit.note,
        detail: { remaining },
      });
    }
    // A cancel that came in while this step awaited wins.
    const record = task.store.record;
    if (record?.state !== "TASK_STATE_WORKING") return;
    // A live message that came in during the last turn: the model reads it before the task ends
    // (an agent program's steps take no live input: its task ends as it says).
    const model = task.agent(record.agent).program === null;
    if (model && !limit && !parts && queuedLive(task).length > 0) {
      await task.scheduler.schedule("loop", "loop", Date.now());
      return;
    }
    const loop = task.loopState.get();
    // No text from the model (and no message of a program's): the harness says what was done.
    const composed =
      loop.answerText.trim() === "" && !parts && task.agent(record.agent).program === null;
    const answer = composed ? workSummary(task.store.history(), stopReason, text) : loop.answerText;
    const handoff = this.#endNote("TASK_STATE_COMPLETED", answer);
    const message = parts ? task.agentMessage(parts) : undefined;
    // The answer's echo, its last chunk and the completed status: one unit (one statement of
    // events). The answer is in the artifact alone; the completed status carries only the note.
    task.unit.run(() => {
      if (answer !== "") task.emitAnswerEcho(answer, Boolean(message || text));
      if (composed) task.emitAnswerChunk(answer, false, true);
      else if (loop.answerStarted) task.emitAnswerChunk("", true, true);
      if (answer !== "") {
        task.store.putArtifact(answerArtifact(answer, record.traceId));
        task.store.appendHistory(task.agentMessage(answer));
      }
      if (message) task.store.appendHistory(message);
      task.setStatus("TASK_STATE_COMPLETED", {
        ...(message ? { message } : text ? { text } : {}),
        metadata: { stopReason },
        releaseAfter: handoff,
      });
    });
    await task.scheduler.cancel("loop");
  }

  /**
   * A call waits: for a person, the task asks them (input-required); for a sub-agent, the task
   * stays working until the child reports (it may have already). The loop stops here either way.
   */
  async #suspend(suspension: Suspension): Promise<void> {
    const task = this.#task;
    if (task.store.record?.state !== "TASK_STATE_WORKING") return;
    if (suspension.kind === "child") {
      // The wait ends with the child's report, or at the task's time limit.
      const deadline = this.#deadline();
      if (deadline === null) await task.scheduler.cancel("loop");
      else await task.scheduler.schedule("loop", "loop", deadline);
      if (this.#children.settleWait(suspension.childTaskId) === "resume")
        await task.scheduler.schedule("loop", "loop", Date.now());
      return;
    }
    const message = task.agentMessage(suspensionParts(suspension));
    task.unit.run(() => task.store.appendHistory(message));
    const auth = suspension.kind === "question" && suspension.authorization === true;
    task.setStatus(auth ? "TASK_STATE_AUTH_REQUIRED" : "TASK_STATE_INPUT_REQUIRED", { message });
    await task.scheduler.cancel("loop");
  }

  /**
   * The agent asks the person (input-required), for their authorization (auth-required), or
   * refuses the task (rejected) with `parts`.
   */
  async #pause(
    state: "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED" | "TASK_STATE_REJECTED",
    parts: Part[],
  ): Promise<void> {
    const task = this.#task;
    if (task.store.record?.state !== "TASK_STATE_WORKING") return;
    const message = task.agentMessage(parts);
    task.unit.run(() => task.store.appendHistory(message));
    task.setStatus(state, { message });
    await task.scheduler.cancel("loop");
  }

  /**
   * The model declined the request: the task is rejected with the refusal's explanation as its
   * status message (kept in the history too) and `metadata.stopReason: "refusal"` (with
   * `refusalCategory` when the API named one). Text the refused turn streamed is withdrawn: a
   * last answer chunk replaces it with what earlier turns said. No end note is written: it would
   * quote the declined request to the next task, and the conversation leaves the refused turns
   * out (see context-membership.ts).
   */
  async #refuse(refusal: Refusal): Promise<void> {
    const task = this.#task;
    if (task.store.record?.state !== "TASK_STATE_WORKING") return;
    const loop = task.loopState.get();
    const message = task.agentMessage(refusal.explanation);
    task.unit.run(() => {
      if (loop.answerStarted) task.emitAnswerChunk(loop.answerText, false, true);
      if (loop.answerText !== "")
        task.store.putArtifact(answerArtifact(loop.answerText, task.store.record?.traceId));
      task.store.appendHistory(message);
      task.setStatus("TASK_STATE_REJECTED", {
        message,
        metadata: {
          stopReason: REFUSAL_STOP_REASON,
          ...(refusal.category ? { refusalCategory: refusal.category } : {}),
        },
      });
    });
    await task.scheduler.cancel("loop");
  }

  /**
   * A budget refused the next model call: a task that has not called the model yet is rejected;
   * one that has ends as completed with `stopReason: "budget"` and what it produced so far.
   */
  async #overBudget(message: string): Promise<void> {
    const task = this.#task;
    if (task.loopState.get().turn > 0) {
      await this.#complete("budget", message);
      return;
    }
    if (task.store.record?.state !== "TASK_STATE_WORKING") return;
    task.setStatus("TASK_STATE_REJECTED", { text: message, metadata: { stopReason: "budget" } });
    await task.scheduler.cancel("loop");
  }

  async fail(message: string): Promise<void> {
    const task = this.#task;
    const loop = task.loopState.get();
    if (loop.answerStarted)
      task.store.putArtifact(
        answerArtifact(loop.answerText + loop.turnText, task.store.record?.traceId),
      );
    const record = task.store.record;
    const workspace = this.#workspace();
    if (record && workspace && loadConfig(this.#env).rollbackOnFailure) {
      const event = await rollBack(workspace, record.id).catch(() => null);
      if (event) this.#task.emitHarnessEvent(event);
    }
    if (task.store.record?.state !== "TASK_STATE_WORKING") return;
    const handoff = this.#endNote("TASK_STATE_FAILED", loop.answerText + loop.turnText);
    task.setStatus("TASK_STATE_FAILED", {
      text: message,
      metadata: { stopReason: "error", error: message },
      releaseAfter: handoff,
    });
    await task.scheduler.cancel("loop");
  }

  /** The task's workspace; null when its tools reach none (see environment-note.ts). */
  #workspace(): WorkspaceApi | null {
    return usesWorkspace(this.#task) ? this.#taskWorkspace() : null;
  }

  /** When the task's time is up (time-limit.ts), or null without a limit. */
  #deadline(): number | null {
    const record = this.#task.store.record;
    return record ? taskDeadline(record, loadConfig(this.#env).maxTaskSeconds) : null;
  }

  /** `at`, or the task's deadline when that comes first (the step then ends the task). */
  #beforeDeadline(at: number): number {
    return Math.min(at, this.#deadline() ?? Number.POSITIVE_INFINITY);
  }

  /**
   * The end note (HANDOFF.md, decisions.log), asked for without waiting (see task-end.ts). A
   * sub-agent's task writes none (its parent's task owns the workspace's handoff), nor does a
   * program's (it has no workspace) or one whose tools reach no file.
   */
  #endNote(state: string, answer: string): Promise<void> {
    const record = this.#task.store.record;
    const workspace = this.#workspace();
    const program = record ? this.#task.agent(record.agent).program : null;
    if (!record || !workspace || record.parentTaskId || program !== null) return Promise.resolve();
    const usage = this.#task.loopState.get().usage;
    const task = {
      taskId: record.id,
      agent: record.agent,
      state,
      history: this.#task.store.history(),
      newOwner: this.#task.newOwner,
      tokens: usageTokens(usage),
      turns: usage.modelCalls,
      costUsd: estimateCost(modelOfTask(record.metadata), usage),
      startedAt: record.createdAt,
    };
    return writeEndNote(workspace, task, answer);
  }
}
