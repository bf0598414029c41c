/**
 * Drives the agent loop inside a task object: one step per alarm. Before each model call it sets
 * the loop's next alarm (a lease), so if the object dies mid-turn the alarm runs the turn again;
 * after the step it schedules the next one, a retry with backoff, or ends the task.
 */
import { loadConfig } from "../config.ts";
import { HookRunner } from "../hooks/registry.ts";
import { runStep, type StepDeps, type StepOutcome } from "../loop/agent-loop.ts";
import { systemPrompt } from "../loop/prompt.ts";
import { modelClient } from "../model/client.ts";
import { streamTurn } from "../model/stream-turn.ts";
import { ToolRegistry } from "../tools/registry.ts";
import { answerArtifact } from "./answer-artifact.ts";
import type { TaskRuntime } from "./task-runtime.ts";

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

  /** Aborts the step in flight (cancel); it will write nothing more. */
  stop(): void {
    this.#abort?.abort(new Error("task canceled"));
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
      const outcome = await runStep(this.#deps(abort.signal));
      if (!abort.signal.aborted) await this.#apply(outcome);
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

  #deps(signal: AbortSignal): StepDeps {
    const task = this.#task;
    const record = task.store.record;
    if (!record) throw new Error("no task");
    const config = loadConfig(this.#env);
    const agent = task.agent(record.agent);
    const tools = new ToolRegistry([]).filter(agent.tools);
    return {
      agent,
      system: systemPrompt(agent, new Date()),
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
      },
      hooks: new HookRunner([]),
      hookContext: {
        taskId: record.id,
        agent: agent.name,
        state: task.hookState,
        notify: (_kind, detail) => task.setStatus("TASK_STATE_WORKING", { text: detail }),
      },
      callModel: (params, onText) =>
        streamTurn(modelClient(config), params, {
          idleTimeoutMs: config.modelIdleTimeoutMs,
          signal,
          onText,
        }),
      loadConversation: () => task.conversation.load(),
      appendConversation: (message) => task.conversation.append(message),
      loopState: () => task.loopState.get(),
      patchLoopState: (changes) => void task.loopState.patch(changes),
      emitAnswer: (action, turnShown) => {
        if (signal.aborted) return;
        this.#task.transaction(() => {
          const loop = task.loopState.get();
          task.loopState.patch({ turnText: turnShown, answerStarted: true });
          if (action.kind === "append")
            task.emitAnswerChunk(action.text, loop.answerStarted, false);
          else task.emitAnswerChunk(loop.answerText + action.text, false, false);
        });
      },
      progress: (text) => task.setStatus("TASK_STATE_WORKING", { text }),
      transaction: (fn) => this.#task.transaction(fn),
    };
  }

  async #apply(outcome: StepOutcome): Promise<void> {
    const { scheduler } = this.#task;
    switch (outcome.kind) {
      case "continue":
        await scheduler.schedule("loop", "loop", Date.now());
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
        await this.#complete(outcome.stopReason, outcome.note);
        return;
      case "failed":
        await this.#fail(outcome.message);
        return;
      case "aborted":
        return;
    }
  }

  async #complete(stopReason: string, note: string | undefined): Promise<void> {
    const task = this.#task;
    const loop = task.loopState.get();
    this.#task.transaction(() => {
      if (loop.answerStarted) task.emitAnswerChunk("", true, true);
      if (loop.answerText !== "") {
        task.store.putArtifact(answerArtifact(loop.answerText));
        task.store.appendHistory(task.agentMessage(loop.answerText));
      }
      task.loopState.patch({ stopReason });
    });
    task.setStatus("TASK_STATE_COMPLETED", {
      ...(note ? { text: note } : {}),
      metadata: { stopReason },
    });
    await task.scheduler.cancel("loop");
  }

  async #fail(message: string): Promise<void> {
    const task = this.#task;
    const loop = task.loopState.get();
    this.#task.transaction(() => {
      if (loop.answerStarted)
        task.store.putArtifact(answerArtifact(loop.answerText + loop.turnText));
      task.loopState.patch({ stopReason: "error" });
    });
    task.setStatus("TASK_STATE_FAILED", {
      text: message,
      metadata: { stopReason: "error", error: message },
    });
    await task.scheduler.cancel("loop");
  }
}
