/**
 * Drives the agent loop inside a task object: one step per alarm (a model turn, or a step of the
 * agent's program, program-step.ts). Before each model call it sets the loop's next alarm (a
 * lease; a task whose creating call starts its first step is leased from its creation, {@link
 * LoopDriver.firstStepLease}), so if the object dies mid-turn the alarm runs the turn again; it
 * gathers the turn's tools (turn-tools.ts), builds its system prompt (turn-context.ts) and
 * compacts the conversation when it is over budget; what follows the step (the next one, a retry
 * with backoff, or the task's end) is step-end.ts. Past its time limit (time-limit.ts) a task
 * runs no further step: the lease never goes beyond the deadline, and an alarm that finds a step
 * still running past it stops it, so the task ends at the deadline, mid-turn or after a restart.
 */
import type { AgentDefinition } from "../../agents/identity.ts";
import { type Config, loadConfig } from "../../config/config.ts";
import { runStep } from "../../loop/agent-loop.ts";
import type { HarnessEvent } from "../../loop/contracts.ts";
import type { StepOutcome } from "../../loop/step-types.ts";
import { modelClient } from "../../model/client.ts";
import { log } from "../../platform/logging.ts";
import { programFor } from "../../programs/index.ts";
import { isTerminal } from "../../protocol/task-states.ts";
import { remoteAgentsOfTask } from "../../remote/handle.ts";
import { withCardDescriptions } from "../../subagents/registry.ts";
import { workspaceFor } from "../../workspace/client.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import { CANCEL_CHILDREN_JOB, type ChildTasks } from "../children/child-tasks.ts";
import { attachFile } from "../runtime/file-artifact.ts";
import type { EventSink, StatusWriter } from "../runtime/status-change.ts";
import type { TaskState } from "../runtime/task-state.ts";
import { attachEnvironment, environmentNoteOf, reachedFiles } from "../store/environment-note.ts";
import { lineageOf, remoteParentOf, scratchIdOf } from "../store/lineage.ts";
import {
  stoppedByTimeLimit,
  TimeLimitReached,
  taskDeadline,
  timeLimitOutcome,
} from "../store/time-limit.ts";
import { runProgramStep } from "./program-step.ts";
import { StepEnd } from "./step-end.ts";
import { memoryAccess, sessionDeps, stepDeps } from "./step-resources.ts";
import { buildSystemPrompt, compactIfNeeded } from "./turn-context.ts";
import { turnTools } from "./turn-tools.ts";

/** How long a step may run before the alarm takes it for dead and runs it again. */
function leaseMs(config: Config): number {
  return config.modelIdleTimeoutMs * 2 + 5_000;
}

/**
 * How long one step may run: an alarm's handler runs at most 15 minutes on Cloudflare, and the
 * step keeps a minute of them for its end. A tool that waits stops waiting by then
 * (ToolContext.deadline), so a step never outlives the alarm that runs it (which would run the
 * step, and send what its tools sent, again).
 */
const STEP_WALL_MS = 14 * 60_000;

/** The end of a lease taken now: never past the task's deadline, when it has one. */
function leaseEnd(config: Config, deadline: number | null): number {
  return Math.min(Date.now() + leaseMs(config), deadline ?? Number.POSITIVE_INFINITY);
}

/** When a step started now must be done: its wall time, or the task's deadline if sooner. */
function stepEnd(deadline: number | null): number {
  return Math.min(Date.now() + STEP_WALL_MS, deadline ?? Number.POSITIVE_INFINITY);
}

/** The payload of a loop entry written as the lease of a first step its creating call starts. */
const FIRST_STEP = { firstStep: true };

function isFirstStepLease(entry: { payload: unknown } | null): boolean {
  return (entry?.payload as { firstStep?: unknown } | null)?.firstStep === true;
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
    return workspaceFor(this.#env.WORKSPACES, lineageOf(record).rootAgent, record.owner);
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
    return { dueAt: leaseEnd(config, limit), payload: FIRST_STEP };
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
      await scheduler.schedule("loop", "loop", leaseEnd(config, timeUp ? null : deadline));
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
      if (!leased) await scheduler.schedule("loop", "loop", leaseEnd(config, deadline));
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
        if (!abort.signal.aborted)
          await this.#end.fail("The task failed because of an internal error in the harness.");
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
    const { tools, files, withUnavailable } = await turnTools({
      agent,
      config,
      env: this.#env,
      subagent: record.parentTaskId !== null || remoteParentOf(record) !== null,
      hookState: this.#task.hookState,
    });
    if (files) reachedFiles(this.#task);
    const workspace = this.workspace();
    const memory = memoryAccess(this.#env, agent.name, record.owner, (work) =>
      this.#task.background(work),
    );
    const noted = environmentNoteOf(this.#task);
    const scratchId = await scratchIdOf(record);
    const {
      system: prompt,
      environment,
      unreadable,
    } = await buildSystemPrompt({
      agent,
      tools: tools.names(),
      workspace,
      ownWorkspace: lineageOf(record).rootAgent === agent.name,
      memory,
      config,
      withEnvironment: noted === undefined,
      newOwner: this.#task.newOwner,
      files,
      session: sessionDeps({
        env: this.#env,
        config,
        agent,
        tools: tools.names(),
        record,
        scratchId,
        workspace,
        emit: (event) => this.#emit(event),
      }),
      delegation: record.parentTaskId
        ? { calledBy: lineageOf(record).rootAgent }
        : remoteParentOf(record)
          ? { calledBy: remoteParentOf(record)?.agent ?? "calling" }
          : {
              subagents: await withCardDescriptions(
                this.#children.types(),
                remoteAgentsOfTask(this.#env, config, record),
              ),
            },
    });
    if (unreadable !== undefined)
      return {
        kind: "failed",
        message: `The workspace could not be read (${unreadable.slice(0, 200)}), so the task stopped before its first model call rather than work without its files and state. Send the message again to retry.`,
      };
    if (environment !== null) attachEnvironment(this.#task, environment, files);
    const system = withUnavailable(prompt);
    if (config.modelMode !== "unconfigured") {
      await compactIfNeeded({
        task: this.#task,
        client: modelClient(config),
        agent,
        system,
        toolChars: tools.definitionChars(),
        budget: config.contextTokenBudget,
        signal,
        emit: (event) => this.#emit(event),
      });
    }
    if (signal.aborted) return null;
    return runStep(
      stepDeps({
        env: this.#env,
        config,
        task: this.#task,
        record,
        agent,
        signal,
        deadline,
        system,
        tools,
        workspace,
        memory,
        scratchId,
        subagents: this.#children.subagents(),
        remote: remoteAgentsOfTask(this.#env, config, record),
        emit: (event) => this.#emit(event),
        attach: (file) => attachFile(this.#task, file, config),
      }),
    );
  }

  #emit(event: HarnessEvent): void {
    this.#task.emitHarnessEvent(event);
  }
}
