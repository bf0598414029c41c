/**
 * Drives the agent loop inside a task object: one step per alarm (a model turn, or a step of the
 * agent's program when it has one, see program-step.ts). Before each model call it sets
 * the loop's next alarm (a lease), so if the object dies mid-turn the alarm runs the turn again;
 * it builds the turn's system prompt and compacts the conversation when it is over budget; after
 * the step it schedules the next one, a retry with backoff, or ends the task (handoff note,
 * rollback on failure when configured).
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../agents/identity.ts";
import { type Config, loadConfig } from "../config/config.ts";
import { defaultHooks } from "../hooks/index.ts";
import { runStep, type StepDeps, type StepOutcome } from "../loop/agent-loop.ts";
import type { HarnessEvent, Suspension } from "../loop/contracts.ts";
import { suspensionParts } from "../loop/suspension.ts";
import type { ToolRegistry } from "../loop/tool-registry.ts";
import { mcpTools } from "../mcp/tools.ts";
import { modelClient } from "../model/client.ts";
import { streamTurn } from "../model/stream-turn.ts";
import { programFor } from "../programs/index.ts";
import type { Part } from "../protocol/wire.ts";
import { remoteAgentsFor } from "../remote/handle.ts";
import { withCardDescriptions } from "../subagents/registry.ts";
import { toolsFor } from "../tools/catalog.ts";
import { workspaceFor } from "../workspace/client.ts";
import type { WorkspaceApi } from "../workspace/types.ts";
import { answerArtifact } from "./answer-artifact.ts";
import { attachEnvironment, environmentNoteOf } from "./environment-note.ts";
import { lineageOf, remoteParentOf } from "./lineage.ts";
import { runProgramStep } from "./program-step.ts";
import { budgetGate, codeSandboxFor } from "./step-resources.ts";
import { askedOf, remainingWork, rollBack } from "./task-end.ts";
import type { TaskRuntime } from "./task-runtime.ts";
import { buildSystemPrompt, compactIfNeeded } from "./turn-context.ts";

/** Runs loop steps for one task object. */
export class LoopDriver {
  readonly #task: TaskRuntime;
  readonly #env: Env;
  #running = false;
  #abort: AbortController | null = null;

  constructor(task: TaskRuntime, env: Env) {
    this.#task = task;
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
                this.#task.childTasks.types(),
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
    return runStep(this.#deps(signal, system, tools, workspace));
  }

  #remote(config: Config, agent: string, traceId: string) {
    return remoteAgentsFor(this.#env as unknown as Record<string, unknown>, config, agent, traceId);
  }

  #emit(event: HarnessEvent): void {
    this.#task.emitHarnessEvent(event);
  }

  #deps(
    signal: AbortSignal,
    system: TextBlockParam[],
    tools: ToolRegistry,
    workspace: WorkspaceApi,
  ): StepDeps {
    const task = this.#task;
    const record = task.store.record;
    if (!record) throw new Error("no task");
    const config = loadConfig(this.#env);
    const agent = task.agent(record.agent);
    const emit = (event: HarnessEvent) => this.#emit(event);
    return {
      agent,
      system,
      limits: {
        maxTurns: Math.min(config.maxTurns, agent.maxTurns),
        idleTimeoutMs: config.modelIdleTimeoutMs,
        maxRetries: config.modelMaxRetries,
        retryBaseMs: config.modelRetryBaseMs,
      },
      signal,
      tools,
      toolContext: {
        taskId: record.id,
        contextId: record.contextId,
        agent: agent.name,
        owner: record.owner,
        signal,
        config,
        workspace,
        db: this.#env.DB,
        files: this.#env.FILES,
        fetch: (input, init) => fetch(input, init),
        scratch: { bucket: this.#env.FILES, rootTaskId: lineageOf(record).rootTaskId },
        subagents: task.childTasks.subagents(),
        remote: this.#remote(config, agent.name, record.traceId),
        emit,
        ...codeSandboxFor(this.#env, agent, config),
      },
      hooks: defaultHooks(),
      hookContext: {
        taskId: record.id,
        agent: agent.name,
        state: task.hookState,
        config,
        requireApproval: agent.tools.requireApproval,
        emit,
      },
      callModel: (params, onText) =>
        streamTurn(modelClient(config), params, {
          idleTimeoutMs: config.modelIdleTimeoutMs,
          signal,
          onText,
        }),
      loadConversation: () => task.conversation.load(),
      appendConversation: (message, contextSeq) => task.conversation.append(message, contextSeq),
      pendingCalls: () => task.pending.get(),
      setPendingCalls: (pending) => task.pending.set(pending),
      loopState: () => task.loopState.get(),
      patchLoopState: (changes) => void task.loopState.patch(changes),
      emitAnswer: (action, turnShown) => {
        if (signal.aborted) return;
        task.transaction(() => {
          const loop = task.loopState.get();
          task.loopState.patch({ turnText: turnShown, answerStarted: true });
          if (action.kind === "append")
            task.emitAnswerChunk(action.text, loop.answerStarted, false);
          else task.emitAnswerChunk(loop.answerText + action.text, false, false);
        });
      },
      transaction: (fn) => task.transaction(fn),
      budget: budgetGate(
        this.#env,
        config,
        this.#task,
        record.id,
        record.owner,
        record.counters ?? `user:${record.owner}`,
      ),
    };
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
      if (task.childTasks.settleWait(suspension.childTaskId) === "resume")
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
   * Asks the workspace for the end note (HANDOFF.md, decisions.log) without waiting: the
   * workspace object composes and writes it under its write lock, so any read that reaches it
   * later (the next task's prompt, a client's read) sees it. A failure never blocks the task's
   * end. A sub-agent's task writes none (its parent's task owns the workspace's handoff), nor
   * does a program's (it has no workspace).
   */
  #endNote(state: string, answer: string): Promise<void> {
    const record = this.#task.store.record;
    if (!record || record.parentTaskId || this.#task.agent(record.agent).program !== null)
      return Promise.resolve();
    const failed = (error: unknown) =>
      console.warn(
        JSON.stringify({
          level: "warn",
          msg: "handoff not written",
          task: record.id,
          error: String(error),
        }),
      );
    return this.workspace()
      .endNote({
        taskId: record.id,
        agent: record.agent,
        state,
        asked: askedOf(this.#task.store.history()),
        answer,
        at: new Date().toISOString(),
      })
      .then((result) => {
        if (!result.ok) failed(result.error);
      }, failed);
  }
}
