import type { Part } from "../a2a/wire.ts";
import type { AgentDefinition } from "../agents/identity.ts";
import { type Config, loadConfig } from "../config.ts";
import { runStep, type StepOutcome } from "../loop/agent-loop.ts";
import type { HarnessEvent } from "../loop/harness-events.ts";
import { type Suspension, suspensionParts } from "../loop/suspension.ts";
import { mcpTools } from "../mcp/tools.ts";
import { modelClient } from "../model/client.ts";
import { programFor } from "../programs/index.ts";
import { remoteAgentsFor } from "../remote/handle.ts";
import { withCardDescriptions } from "../subagents/registry.ts";
import { toolsFor } from "../tools/catalog.ts";
import { workspaceFor } from "../workspace/client.ts";
import type { WorkspaceApi } from "../workspace/types.ts";
import { answerArtifact } from "./answer-artifact.ts";
import type { ChildTasks } from "./child-tasks.ts";
import { attachEnvironment, environmentNoteOf } from "./environment-note.ts";
import { lineageOf, remoteParentOf } from "./lineage.ts";
import { runProgramStep } from "./program-step.ts";
import { stepDeps } from "./step-resources.ts";
import { remainingWork, rollBack, writeEndNote } from "./task-end.ts";
import type { TaskRuntime } from "./task-runtime.ts";
import { buildSystemPrompt, compactIfNeeded } from "./turn-context.ts";

/** Runs loop steps for one task object. */
export class LoopDriver {
  readonly #task: TaskRuntime;
  readonly #children: ChildTasks;
  readonly #env: Env;
  #running = false;
  #abort: AbortController | null = null;

  constructor(task: TaskRuntime, children: ChildTasks, env: Env) {
    this.#task = task;
    this.#children = children;
    this.#env = env;
  }

  /** Whether a step is running in this instance. */
  get running(): boolean {
    return this.#running;
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

  /** Runs one step if the task is working; called from the alarm. */
  async step(): Promise<void> {
    const { store, scheduler } = this.#task;
    const config = loadConfig(this.#env);
    const leaseMs = config.modelIdleTimeoutMs * 2 + 5_000;
    if (this.#running) {
      // The lease ran out while this instance is still streaming a long turn: extend it.
      await scheduler.schedule("loop", "loop", Date.now() + leaseMs);
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
      await scheduler.schedule("loop", "loop", Date.now() + leaseMs);
      if (abort.signal.aborted || store.record?.state !== "TASK_STATE_WORKING") return;
      const agent = this.#task.agent(store.record.agent);
      const program = programFor(agent);
      // A program answers in place of the model: same task, events, history and outcomes.
      const outcome = program
        ? runProgramStep(this.#task, program)
        : await this.#modelStep(agent, config, abort.signal);
      if (outcome && !abort.signal.aborted) await this.#apply(outcome);
    } catch (error) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "loop step failed",
          task: store.record?.id,
          error: String(error),
        }),
      );
      if (!abort.signal.aborted)
        await this.#fail("The task failed because of an internal error in the harness.");
    } finally {
      this.#running = false;
      this.#abort = null;
    }
  }

  /** One model turn and its tool calls; null when the task was canceled meanwhile. */
  async #modelStep(
    agent: AgentDefinition,
    config: Config,
    signal: AbortSignal,
  ): Promise<StepOutcome | null> {
    const record = this.#task.store.record;
    if (!record) return null;
    const tools = toolsFor(agent, config, {
      subagent: record.parentTaskId !== null || remoteParentOf(record) !== null,
      extra: await mcpTools(agent, this.#env as unknown as Record<string, unknown>),
      codeSandbox: Boolean(this.#env.LOADER),
    });
    const workspace = this.workspace();
    const noted = environmentNoteOf(this.#task);
    const { system, environment } = await buildSystemPrompt({
      agent,
      owner: record.owner,
      tools: tools.names(),
      workspace,
      files: this.#env.FILES,
      config,
      withEnvironment: noted === undefined,
      delegation: record.parentTaskId
        ? { calledBy: lineageOf(record).rootAgent }
        : remoteParentOf(record)
          ? { calledBy: remoteParentOf(record)?.agent ?? "calling" }
          : {
              subagents: await withCardDescriptions(
                this.#children.types(),
                this.#remote(config, record.agent, record.traceId),
              ),
            },
    });
    if (environment !== null) attachEnvironment(this.#task, environment);
    if (config.modelMode !== "unconfigured") {
      await compactIfNeeded({
        rt: this.#task,
        client: modelClient(config),
        agent,
        system,
        tools: tools.definitions(),
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
        system,
        tools,
        workspace,
        subagents: this.#children.subagents(),
        remote: this.#remote(config, agent.name, record.traceId),
        emit: (event) => this.#emit(event),
      }),
    );
  }

  #remote(config: Config, agent: string, traceId: string) {
    return remoteAgentsFor(this.#env as unknown as Record<string, unknown>, config, agent, traceId);
  }

  #emit(event: HarnessEvent): void {
    this.#task.emitHarnessEvent(event);
  }

  async #apply(outcome: StepOutcome): Promise<void> {
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
        await scheduler.schedule("loop", "loop", Date.now() + outcome.delayMs);
        return;
      }
      case "completed":
        await this.#complete(outcome.stopReason, outcome.note, outcome.message);
        return;
      case "failed":
        await this.#fail(outcome.message);
        return;
      case "suspended":
        await this.#suspend(outcome.suspension);
        return;
      case "input-required":
        await this.#pause("TASK_STATE_INPUT_REQUIRED", outcome.message);
        return;
      case "rejected":
        await this.#pause("TASK_STATE_REJECTED", outcome.message);
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
    if (stopReason === "max_turns") {
      const remaining = await remainingWork(this.workspace());
      text = `${note ?? "The turn limit was reached."} ${
        remaining.length > 0
          ? `Still to do (from PROGRESS.json):\n${remaining.map((r) => `- ${r}`).join("\n")}`
          : "PROGRESS.json lists nothing remaining."
      }`;
      this.#emit({ kind: "turn_limit", text: note ?? "Turn limit reached", detail: { remaining } });
    }
    // A cancel that came in while this step awaited wins.
    if (task.store.record?.state !== "TASK_STATE_WORKING") return;
    const handoff = this.#endNote("TASK_STATE_COMPLETED", task.loopState.get().answerText);
    const loop = task.loopState.get();
    const message = parts ? task.agentMessage(parts) : undefined;
    task.transaction(() => {
      if (loop.answerStarted) task.emitAnswerChunk("", true, true);
      if (loop.answerText !== "") {
        task.store.putArtifact(answerArtifact(loop.answerText));
        task.store.appendHistory(task.agentMessage(loop.answerText));
      }
      if (message) task.store.appendHistory(message);
      task.loopState.patch({ stopReason });
    });
    task.setStatus("TASK_STATE_COMPLETED", {
      ...(text ? { text } : {}),
      ...(message ? { message } : {}),
      metadata: { stopReason },
      releaseAfter: handoff,
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
      await task.scheduler.cancel("loop");
      if (this.#children.settleWait(suspension.childTaskId) === "resume")
        await task.scheduler.schedule("loop", "loop", Date.now());
      return;
    }
    const message = task.agentMessage(suspensionParts(suspension));
    task.transaction(() => task.store.appendHistory(message));
    task.setStatus("TASK_STATE_INPUT_REQUIRED", { message });
    await task.scheduler.cancel("loop");
  }

  /** The agent asks the person (input-required) or refuses the task (rejected) with `parts`. */
  async #pause(
    state: "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_REJECTED",
    parts: Part[],
  ): Promise<void> {
    const task = this.#task;
    if (task.store.record?.state !== "TASK_STATE_WORKING") return;
    const message = task.agentMessage(parts);
    task.transaction(() => task.store.appendHistory(message));
    task.setStatus(state, { message });
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
    task.loopState.patch({ stopReason: "budget" });
    task.setStatus("TASK_STATE_REJECTED", { text: message, metadata: { stopReason: "budget" } });
    await task.scheduler.cancel("loop");
  }

  async #fail(message: string): Promise<void> {
    const task = this.#task;
    const loop = task.loopState.get();
    task.transaction(() => {
      if (loop.answerStarted)
        task.store.putArtifact(answerArtifact(loop.answerText + loop.turnText));
      task.loopState.patch({ stopReason: "error" });
    });
    const record = task.store.record;
    if (record && loadConfig(this.#env).rollbackOnFailure) {
      const event = await rollBack(this.workspace(), record.id).catch(() => null);
      if (event) this.#emit(event);
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

  /**
   * The end note (HANDOFF.md, decisions.log), asked for without waiting (see task-end.ts). A
   * sub-agent's task writes none (its parent's task owns the workspace's handoff), nor does a
   * program's (it has no workspace).
   */
  #endNote(state: string, answer: string): Promise<void> {
    const record = this.#task.store.record;
    if (!record || record.parentTaskId || this.#task.agent(record.agent).program !== null)
      return Promise.resolve();
    const task = {
      taskId: record.id,
      agent: record.agent,
      state,
      history: this.#task.store.history(),
    };
    return writeEndNote(this.workspace(), task, answer);
  }
}
