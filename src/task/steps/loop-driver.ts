/**
 * Drives the agent loop inside a task object: one step per alarm (a model turn, or a step of the
 * agent's program, program-step.ts). Before each model call it sets the loop's next alarm (a
 * lease of {@link LEASE_MS}, renewed by the alarm itself while the step runs; a task whose
 * creating call starts its first step is leased from its creation, {@link
 * LoopDriver.firstStepLease}), so if the object dies mid-turn the alarm runs the turn again
 * within seconds. A
 * model step's turn (its tools, system prompt, compacted conversation and the step's
 * dependencies) is prepared as one value in task/turn/ (prepare-turn.ts) and run by the loop
 * (loop/agent-loop.ts); the driver keeps the lease, the deadline, the abort and the outcome: what
 * follows the step (the next one, a retry with backoff, or the task's end) is step-end.ts. A task
 * past its time limit (`MAX_TASK_SECONDS`, store/time-limit.ts) runs no further step: the lease is never
 * set beyond the deadline, and an alarm that finds a step still running past it stops that step,
 * so the task ends at the deadline even mid-turn, and after a restart.
 */
import type { AgentDefinition } from "../../agents/identity.ts";
import { type Config, loadConfig } from "../../config/config.ts";
import { runStep } from "../../loop/agent-loop.ts";
import type { StepOutcome } from "../../loop/step-types.ts";
import { fieldOf } from "../../platform/fields.ts";
import { log } from "../../platform/logging.ts";
import { failedDependency } from "../../platform/retry.ts";
import { programFor } from "../../programs/index.ts";
import { isTerminal } from "../../protocol/task-states.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import { CANCEL_CHILDREN_JOB, type ChildTasks } from "../children/child-tasks.ts";
import type { EventSink, StatusWriter } from "../runtime/status-change.ts";
import type { TaskState } from "../runtime/task-state.ts";
import {
  stoppedByTimeLimit,
  TimeLimitReached,
  taskDeadline,
  timeLimitOutcome,
} from "../store/time-limit.ts";
import { prepareTurn } from "../turn/prepare-turn.ts";
import { stepDeps } from "../turn/step-deps.ts";
import { taskWorkspace } from "../turn/turn-resources.ts";
import { runProgramStep } from "./program-step.ts";
import { StepEnd } from "./step-end.ts";

/**
 * How far ahead a step's lease sets the loop's alarm. The alarm renews it while the step runs (it
 * fires in the live instance, finds the step running and moves itself on: a heartbeat), so a
 * short lease costs one alarm per lease and never runs a live step twice: an object has one
 * instance at a time, and a new one (after a deploy, a crash, an eviction) runs no step yet.
 * Once the instance is gone the alarm fires at most this long after, in a fresh instance
 * (recovery resumes the step at once: task-parts.ts `recover`).
 */
export const LEASE_MS = 5_000;

/**
 * How long one step may run: an alarm's handler runs at most 15 minutes on Cloudflare, and the
 * step keeps a minute of them for its end. A tool that waits stops waiting by then
 * (ToolContext.deadline), so a step never outlives the alarm that runs it (which would run the
 * step, and send what its tools sent, again).
 */
const STEP_WALL_MS = 14 * 60_000;

/** The end of a lease taken now: never past the task's deadline, when it has one. */
function leaseEnd(deadline: number | null): number {
  return Math.min(Date.now() + LEASE_MS, deadline ?? Number.POSITIVE_INFINITY);
}

/** When a step started now must be done: its wall time, or the task's deadline if sooner. */
function stepEnd(deadline: number | null): number {
  return Math.min(Date.now() + STEP_WALL_MS, deadline ?? Number.POSITIVE_INFINITY);
}

/** The payload of a loop entry written as the lease of a first step its creating call starts. */
const FIRST_STEP = { firstStep: true };

function isFirstStepLease(entry: { payload: unknown } | null): boolean {
  return fieldOf(entry?.payload, "firstStep") === true;
}

/**
 * What a task that failed with `error` says: which dependency kept failing (a transient fault
 * outlasted its retries, platform/retry.ts), or that the harness failed.
 */
export function failureText(error: unknown): string {
  const dependency = failedDependency(error);
  return dependency === null
    ? "The task failed because of an internal error in the harness."
    : `The task failed because a call to ${dependency} kept failing after its retries (${String(error instanceof Error ? error.message : error).slice(0, 300)}).`;
}

/** The task the loop drives: all of its state, its status and its events. */
export type DrivenTask = TaskState & StatusWriter & EventSink;

/** Runs loop steps for one task object. */
export class LoopDriver {
  readonly #task: DrivenTask;
  readonly #children: ChildTasks;
  readonly #env: Env;
  readonly #end: StepEnd;
  #running = false;
  /** A step is about to start from {@link kick}. */
  #kicked = false;
  #abort: AbortController | null = null;

  constructor(task: DrivenTask, children: ChildTasks, env: Env) {
    this.#task = task;
    this.#children = children;
    this.#env = env;
    this.#end = new StepEnd(task, children, env, () => this.workspace());
  }

  /** Whether a step is running in this instance. */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Runs a due step as soon as the current call has answered, rather than from the alarm (which
   * stays as the fallback): the call's answer (a stream's first event) goes out first.
   */
  kick(): void {
    const loop = this.#task.scheduler.get("loop");
    const due = loop !== null && (loop.dueAt <= Date.now() || isFirstStepLease(loop));
    if (this.#kicked || this.#running || !due) return;
    this.#kicked = true;
    this.#task.background(
      new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
        this.#kicked = false;
        // The alarm may have started it meanwhile.
        return this.#running ? undefined : this.step();
      }),
    );
  }

  /** Aborts the step in flight (cancel); it will write nothing more. */
  stop(): void {
    this.#abort?.abort(new Error("task canceled"));
  }

  /** The workspace the task works in: its root agent's, for this owner (sub-agents share it). */
  workspace(): WorkspaceApi {
    const record = this.#task.store.record;
    if (!record) throw new Error("no task");
    return taskWorkspace(this.#env, record);
  }

  /**
   * The loop entry of a new task whose creating call starts its first step ({@link kick}): the
   * step's lease, written with the task (so the step itself writes none). Should the object die
   * before the step starts, the alarm runs it when the lease ends, or sooner if the object is
   * called again (a restarted object resumes a working task at once).
   */
  firstStepLease(): { dueAt: number; payload: unknown } {
    const config = loadConfig(this.#env);
    const limit = config.maxTaskSeconds > 0 ? Date.now() + config.maxTaskSeconds * 1000 : null;
    return { dueAt: leaseEnd(limit), payload: FIRST_STEP };
  }

  /** Runs one step if the task is working; called from the alarm. */
  async step(): Promise<void> {
    const { store, scheduler } = this.#task;
    const config = loadConfig(this.#env);
    const deadline = store.record ? taskDeadline(store.record, config.maxTaskSeconds) : null;
    if (this.#running) {
      // Past the deadline, the step in flight stops (and ends the task); otherwise the lease ran
      // out while this instance is still streaming a long turn: extend it.
      const timeUp = deadline !== null && Date.now() >= deadline;
      if (timeUp) this.#abort?.abort(new TimeLimitReached());
      await scheduler.schedule("loop", "loop", leaseEnd(timeUp ? null : deadline));
      return;
    }
    if (store.record?.state !== "TASK_STATE_WORKING") {
      await scheduler.cancel("loop");
      return;
    }
    const abort = new AbortController();
    this.#abort = abort;
    this.#running = true;
    try {
      const entry = scheduler.get("loop");
      const leased = isFirstStepLease(entry) && (entry?.dueAt ?? 0) > Date.now();
      if (!leased) await scheduler.schedule("loop", "loop", leaseEnd(deadline));
      if (abort.signal.aborted || store.record?.state !== "TASK_STATE_WORKING") return;
      if (deadline !== null && Date.now() >= deadline) {
        await this.#endAtTimeLimit(config, false);
        return;
      }
      const agent = this.#task.agent(store.record.agent);
      const program = programFor(agent);
      // A program answers in place of the model: same task, events, history and outcomes.
      const outcome = program
        ? runProgramStep(this.#task, program)
        : await this.#modelStep(agent, config, abort.signal, stepEnd(deadline));
      // A turn the deadline stopped ends the task; one that finished first keeps its answer.
      if (stoppedByTimeLimit(abort.signal) && outcome?.kind !== "completed")
        await this.#endAtTimeLimit(config, true);
      else if (outcome && !abort.signal.aborted) await this.#end.apply(outcome);
    } catch (error) {
      if (stoppedByTimeLimit(abort.signal)) await this.#endAtTimeLimit(config, true);
      else {
        log("error", "loop step failed", { task: store.record?.id, error: String(error) });
        if (!abort.signal.aborted) await this.#end.fail(failureText(error));
      }
    } finally {
      this.#running = false;
      this.#abort = null;
    }
  }

  /**
   * Ends the task at its time limit: the text a stopped turn streamed stays in the answer (as
   * clients saw it), and the sub-agents it still waits for are canceled.
   */
  async #endAtTimeLimit(config: Config, midTurn: boolean): Promise<void> {
    const rt = this.#task;
    const loop = rt.loopState.get();
    if (midTurn && loop.turnText !== "")
      rt.loopState.patch({ answerText: loop.answerText + loop.turnText, turnText: "" });
    await this.#end.apply(timeLimitOutcome(config.maxTaskSeconds, midTurn));
    const ended = rt.store.record?.metadata.stopReason === "time_limit";
    if (ended && rt.children.all().some((c) => !c.report || !isTerminal(c.report.state))) {
      await rt.scheduler.schedule(CANCEL_CHILDREN_JOB, "context", Date.now());
      rt.background(this.#children.cancelChildren());
    }
  }

  /** One model turn and its tool calls; null when the task was canceled meanwhile. */
  async #modelStep(
    agent: AgentDefinition,
    config: Config,
    signal: AbortSignal,
    deadline: number,
  ): Promise<StepOutcome | null> {
    const record = this.#task.store.record;
    if (!record) return null;
    const prepared = await prepareTurn({
      env: this.#env,
      config,
      task: this.#task,
      record,
      agent,
      signal,
      deadline,
      subagents: this.#children.subagents(),
    });
    if (signal.aborted) return null;
    return prepared.ok ? runStep(stepDeps(prepared.turn)) : prepared.outcome;
  }
}
