/**
 * The task Durable Object: one per task, addressed by the task id. It owns the task's record,
 * history, event log and live streams, and drives the agent loop from its alarm, one model turn
 * per step, so the task outlives the request that started it and survives restarts. Client
 * mistakes come back as TaskResult errors; nothing a client sends can throw in here.
 */
import { DurableObject } from "cloudflare:workers";
import type { Artifact, Message, Task, TaskStateName } from "../a2a/wire.ts";
import type { AgentDefinition } from "../agents/identity.ts";
import { bundledAgents } from "../agents/registry.ts";
import { loadConfig } from "../config.ts";
import { toUserContent } from "../loop/user-content.ts";
import { modelSourceLabel } from "../model/client.ts";
import { answerArtifact } from "./answer-artifact.ts";
import { ConversationStore } from "./conversation-store.ts";
import { EventLog } from "./event-log.ts";
import { SqlHookState } from "./hook-state.ts";
import { LoopDriver } from "./loop-driver.ts";
import { LoopStateStore } from "./loop-state.ts";
import { Outbox } from "./outbox.ts";
import type {
  CreateTaskInput,
  FollowUpInput,
  SendOutcome,
  SubscribeInput,
  TaskErrorKind,
  TaskResult,
} from "./rpc-types.ts";
import { Scheduler } from "./scheduler.ts";
import { migrate } from "./schema.ts";
import { canTransition, isSettled, isTerminal, transition } from "./state-machine.ts";
import { Subscribers } from "./subscribers.ts";
import { TaskStore } from "./task-store.ts";

const fail = <T>(kind: TaskErrorKind, message: string): TaskResult<T> => ({
  ok: false,
  error: { kind, message },
});
const ok = <T>(value: T): TaskResult<T> => ({ ok: true, value });

/** A task's Durable Object. */
export class TaskObject extends DurableObject<Env> {
  store!: TaskStore;
  log!: EventLog;
  loopState!: LoopStateStore;
  conversation!: ConversationStore;
  hookState!: SqlHookState;
  scheduler!: Scheduler;
  outbox!: Outbox;
  readonly subscribers = new Subscribers();
  /** What the outbox sends: the index row and finished artifacts, derived from current state. */
  readonly outboxSource = {
    indexRow: () => this.#indexRow(),
    finishedArtifacts: () => this.#finishedArtifacts(),
  };
  readonly #waiters = new Set<() => void>();
  #driver!: LoopDriver;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      migrate(sql);
      this.store = new TaskStore(sql);
      this.log = new EventLog(sql);
      this.loopState = new LoopStateStore(sql);
      this.conversation = new ConversationStore(sql);
      this.hookState = new SqlHookState(sql);
      this.scheduler = new Scheduler(ctx.storage);
      this.outbox = new Outbox(env.DB, env.FILES, this.scheduler, this.outboxSource);
      this.log.subscribe((entry) => this.subscribers.broadcast(entry));
      this.#driver = new LoopDriver(this, ctx, env);
      await this.#recover();
    });
  }

  // ---- RPC ---------------------------------------------------------------------------------

  /** Starts a new task with its first message; optionally returns its stream from event 1. */
  async create(
    input: CreateTaskInput,
    options: { stream: boolean },
  ): Promise<TaskResult<SendOutcome>> {
    const existing = this.store.record;
    if (existing) {
      if (existing.id !== input.taskId || existing.owner !== input.owner)
        return fail("not_found", "task not found");
      return ok({
        task: this.snapshot(),
        stream: options.stream
          ? this.subscribers.open(this.log.after(0), isSettled(existing.state))
          : null,
      });
    }
    const agent = this.agent(input.agent);
    const now = new Date().toISOString();
    const message: Message = { ...input.message, taskId: input.taskId, contextId: input.contextId };
    this.ctx.storage.transactionSync(() => {
      this.store.insert({
        id: input.taskId,
        contextId: input.contextId,
        agent: agent.name,
        owner: input.owner,
        traceId: input.traceId,
        parentTaskId: null,
        state: "TASK_STATE_SUBMITTED",
        status: { state: "TASK_STATE_SUBMITTED", timestamp: now },
        metadata: {
          owner: input.owner,
          traceId: input.traceId,
          agent: agent.name,
          model: { name: agent.model, source: modelSourceLabel(loadConfig(this.env)) },
          ...(input.requestMetadata ? { request: input.requestMetadata } : {}),
        },
        createdAt: now,
      });
      this.store.appendHistory(message);
      this.conversation.append({ role: "user", content: toUserContent(message.parts) });
      this.log.append({ task: this.snapshot() });
    });
    await this.setStatus("TASK_STATE_WORKING");
    await this.scheduler.schedule("loop", "loop", Date.now());
    return ok({
      task: this.snapshot(),
      stream: options.stream ? this.subscribers.open(this.log.after(0), false) : null,
    });
  }

  /** A further message for this task: resumes a task waiting for input. */
  async followUp(
    input: FollowUpInput,
    options: { stream: boolean },
  ): Promise<TaskResult<SendOutcome>> {
    const record = this.store.record;
    if (!record || record.owner !== input.owner) return fail("not_found", "task not found");
    if (input.message.contextId && input.message.contextId !== record.contextId) {
      return fail(
        "context_mismatch",
        `task ${record.id} belongs to context ${record.contextId}, not ${input.message.contextId}`,
      );
    }
    if (isTerminal(record.state))
      return fail(
        "terminal",
        `task ${record.id} has ended (${record.state}) and accepts no further messages`,
      );
    if (!canTransition(record.state, "TASK_STATE_WORKING")) {
      return fail(
        "busy",
        `task ${record.id} is still working; wait for it to finish or cancel it before sending another message`,
      );
    }
    const message: Message = { ...input.message, taskId: record.id, contextId: record.contextId };
    this.ctx.storage.transactionSync(() => {
      this.store.appendHistory(message);
      this.conversation.append({ role: "user", content: toUserContent(message.parts) });
    });
    await this.setStatus("TASK_STATE_WORKING");
    await this.scheduler.schedule("loop", "loop", Date.now());
    const stream = options.stream
      ? this.subscribers.open([{ seq: this.log.lastSeq, event: { task: this.snapshot() } }], false)
      : null;
    return ok({ task: this.snapshot(), stream });
  }

  /** The task as it is now. */
  async get(input: { owner: string; historyLength?: number }): Promise<TaskResult<Task>> {
    const record = this.store.record;
    if (!record || record.owner !== input.owner) return fail("not_found", "task not found");
    return ok(this.snapshot(input.historyLength));
  }

  /** Resolves once the task ends or waits for input. */
  async waitSettled(input: { owner: string; historyLength?: number }): Promise<TaskResult<Task>> {
    const record = this.store.record;
    if (!record || record.owner !== input.owner) return fail("not_found", "task not found");
    if (!isSettled(record.state)) await new Promise<void>((resolve) => this.#waiters.add(resolve));
    return ok(this.snapshot(input.historyLength));
  }

  /** Cancels the task: stops the loop; no model call starts after this returns. */
  async cancel(input: { owner: string }): Promise<TaskResult<Task>> {
    const record = this.store.record;
    if (!record || record.owner !== input.owner) return fail("not_found", "task not found");
    if (isTerminal(record.state))
      return fail("not_cancelable", `task ${record.id} has already ended (${record.state})`);
    this.#driver.stop();
    this.#keepPartialAnswer();
    await this.setStatus("TASK_STATE_CANCELED", { text: "Canceled at the client's request." });
    await this.scheduler.cancel("loop");
    return ok(this.snapshot());
  }

  /**
   * A live stream of the task's events. `after: null` starts with the current Task (refused for
   * an ended task); `after: n` replays what followed event n, then continues live.
   */
  async subscribe(input: SubscribeInput): Promise<TaskResult<ReadableStream<Uint8Array>>> {
    const record = this.store.record;
    if (!record || record.owner !== input.owner) return fail("not_found", "task not found");
    if (input.after === null) {
      if (isTerminal(record.state))
        return fail("terminal", `task ${record.id} has ended (${record.state}); use GetTask`);
      return ok(
        this.subscribers.open([{ seq: this.log.lastSeq, event: { task: this.snapshot() } }], false),
      );
    }
    return ok(this.subscribers.open(this.log.after(input.after), isTerminal(record.state)));
  }

  /** Runs whatever the schedule says is due: loop steps, outbox retries. */
  override async alarm(): Promise<void> {
    for (const entry of this.scheduler.due(Date.now())) {
      try {
        if (entry.kind === "loop") await this.#driver.step();
        else if (entry.kind === "outbox") await this.outbox.retry(entry.id);
        else await this.scheduler.cancel(entry.id);
      } catch (error) {
        console.error(
          JSON.stringify({
            level: "error",
            msg: "alarm job failed",
            job: entry.id,
            error: String(error),
          }),
        );
      }
    }
    await this.scheduler.arm();
  }

  // ---- used by the loop driver --------------------------------------------------------------

  /** The agent definition by name (bundled). */
  agent(name: string): AgentDefinition {
    const agent = bundledAgents().get(name);
    if (!agent) throw new Error(`unknown agent ${name}`);
    return agent;
  }

  /** The task with partial artifacts still streaming; `historyLength` per spec 3.2.4. */
  snapshot(historyLength?: number): Task {
    return this.store.toTask(historyLength, this.#partialAnswer());
  }

  /**
   * Moves the task to `state` (or re-announces a working status with a message), emits the
   * status event, syncs the index on a state change, and settles waiters and streams.
   */
  async setStatus(
    state: TaskStateName,
    options: { text?: string; metadata?: Record<string, unknown> } = {},
  ): Promise<void> {
    const record = this.store.record;
    if (!record) return;
    const changed = record.state !== state;
    if (changed) transition(record.state, state);
    const timestamp = new Date().toISOString();
    const message = options.text === undefined ? undefined : this.agentMessage(options.text);
    const usage = this.loopState.get().usage;
    const metadata = { ...record.metadata, ...options.metadata, usage };
    const status = { state, timestamp, ...(message ? { message } : {}) };
    this.ctx.storage.transactionSync(() => {
      this.store.update(status, metadata);
      this.log.append({
        statusUpdate: {
          taskId: record.id,
          contextId: record.contextId,
          status,
          ...(isSettled(state) ? { metadata: { traceId: record.traceId, usage } } : {}),
        },
      });
    });
    if (changed) this.#background(this.outbox.syncIndex());
    if (isSettled(state)) {
      this.subscribers.closeAll();
      for (const resolve of this.#waiters) resolve();
      this.#waiters.clear();
    }
    if (isTerminal(state)) this.#background(this.outbox.exportArtifacts());
  }

  /** A message from the agent in this task. */
  agentMessage(text: string): Message {
    const record = this.store.record;
    return {
      messageId: crypto.randomUUID(),
      role: "ROLE_AGENT",
      parts: [{ text }],
      ...(record ? { taskId: record.id, contextId: record.contextId } : {}),
    };
  }

  /** Emits an answer chunk event (append or replace) for the answer artifact. */
  emitAnswerChunk(text: string, append: boolean, lastChunk: boolean): void {
    const record = this.store.record;
    if (!record) return;
    this.log.append({
      artifactUpdate: {
        taskId: record.id,
        contextId: record.contextId,
        artifact: answerArtifact(text),
        append,
        lastChunk,
      },
    });
  }

  // ---- internals ----------------------------------------------------------------------------

  #partialAnswer(): Artifact[] {
    const record = this.store.record;
    const loop = this.loopState.get();
    if (!record || isTerminal(record.state) || !loop.answerStarted) return [];
    return [answerArtifact(loop.answerText + loop.turnText)];
  }

  #keepPartialAnswer(): void {
    const loop = this.loopState.get();
    if (loop.answerStarted) this.store.putArtifact(answerArtifact(loop.answerText + loop.turnText));
  }

  #indexRow() {
    const record = this.store.record;
    if (!record) return null;
    const usage = this.loopState.get().usage;
    return {
      id: record.id,
      agent: record.agent,
      contextId: record.contextId,
      owner: record.owner,
      state: record.state,
      parentTaskId: record.parentTaskId,
      traceId: record.traceId,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      version: record.version,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      modelCalls: usage.modelCalls,
    };
  }

  #finishedArtifacts() {
    const record = this.store.record;
    if (!record || !isTerminal(record.state)) return null;
    return { taskId: record.id, artifacts: this.store.artifacts() };
  }

  #background(work: Promise<void>): void {
    this.ctx.waitUntil(
      work.catch((error) =>
        console.error(
          JSON.stringify({ level: "error", msg: "background job failed", error: String(error) }),
        ),
      ),
    );
  }

  /** After a restart: a task left in flight resumes now (no step of a fresh instance is running). */
  async #recover(): Promise<void> {
    const record = this.store.record;
    if (!record) return;
    if (record.state === "TASK_STATE_SUBMITTED") await this.setStatus("TASK_STATE_WORKING");
    const working = this.store.record?.state === "TASK_STATE_WORKING";
    if (working && (this.loopState.get().attempt === 0 || !this.scheduler.get("loop"))) {
      await this.scheduler.schedule("loop", "loop", Date.now());
      return;
    }
    await this.scheduler.arm();
  }
}
