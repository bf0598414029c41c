/**
 * Everything a task object holds, and the one place that changes a task: its stores (record,
 * history, event log, conversation, loop counters, hook state, schedule), its live streams and
 * waiters, and the operations the RPC layer and the loop driver share: snapshot, status change
 * with its event, answer chunks. Status changes write SQLite and the event log in one
 * transaction, then settle streams and waiters and send the index row. The runtime builds none
 * of the task's collaborators: it announces what happened (the task settled, a harness event)
 * to whoever subscribed (see task-parts.ts, which wires them).
 */
import { type AgentDefinition, withDefaultModel } from "../agents/identity.ts";
import { currentAgents } from "../agents/overrides.ts";
import { loadConfig } from "../config/config.ts";
import type { HarnessEvent } from "../loop/contracts.ts";
import { harnessEventMessage } from "../loop/harness-events.ts";
import type { Artifact, Message, Part, Task, TaskStateName } from "../protocol/wire.ts";
import { PUSH_HISTORY_LENGTH, pushBody } from "../push/push-payload.ts";
import { PushSender } from "../push/push-sender.ts";
import { PushStore } from "../push/push-store.ts";
import { Scheduler } from "../store/scheduler.ts";
import { usageMetadata } from "../trace/cost.ts";
import { ModelCallStore } from "../trace/model-calls.ts";
import { taskTraceHeaders } from "../trace/task-trace.ts";
import type { BudgetHint } from "../users/limits.ts";
import {
  answerChunk,
  emitArtifact,
  PROGRESS_ARTIFACT_ID,
  streamedAnswer,
} from "./answer-artifact.ts";
import { BackgroundWork } from "./background.ts";
import { ChildrenStore } from "./children.ts";
import { ContextLinkStore } from "./context-link.ts";
import { ConversationStore } from "./conversation-store.ts";
import { noteOverlay } from "./environment-note.ts";
import { EventLog } from "./event-log.ts";
import { SqlHookState } from "./hook-state.ts";
import { LoopStateStore } from "./loop-state.ts";
import { Outbox, type OutboxSource, outboxSourceOf } from "./outbox.ts";
import { PendingStore } from "./pending-store.ts";
import { isSettled, isTerminal, transition } from "./state-machine.ts";
import { Subscribers } from "./subscribers.ts";
import { TaskStore } from "./task-store.ts";

/** What the runtime tells subscribers when the task settles (ends, or waits for input). */
export interface Settlement {
  state: TaskStateName;
  /** Work the conversation's release waits for (the end note in the workspace). */
  releaseAfter: Promise<void>;
}

/** A subscriber's reaction; work it returns is kept alive in the background. */
type Listener<T> = (value: T) => Promise<void> | undefined;

/** A task's state and the operations on it. Built once per object instance. */
export class TaskRuntime {
  readonly store: TaskStore;
  readonly log: EventLog;
  readonly loopState: LoopStateStore;
  readonly conversation: ConversationStore;
  readonly hookState: SqlHookState;
  readonly pending: PendingStore;
  readonly children: ChildrenStore;
  readonly modelCalls: ModelCallStore; // each model call with its tokens (the model spans)
  readonly scheduler: Scheduler;
  readonly contextLink: ContextLinkStore;
  readonly subscribers = new Subscribers();
  /** What the outbox sends: the index row and finished artifacts, derived from current state. */
  readonly outboxSource: OutboxSource;
  outbox: Outbox;
  readonly push: PushStore;
  readonly pushSender: PushSender;
  /** What the task keeps alive after a call returns ({@link background}); erasure waits for it. */
  readonly work: BackgroundWork;
  /** The owner's budget overrides the latest message's request found (in memory only). */
  budgetHint: BudgetHint | null = null;
  /** The owner is new with this task (an anonymous caller's new conversation); in memory only. */
  newOwner = false;
  readonly #ctx: DurableObjectState;
  readonly #env: Env;
  readonly #waiters = new Set<() => void>();
  readonly #onSettled: Listener<Settlement>[] = [];
  readonly #copies: Array<{ forget(): void }> = [];
  readonly #onHarnessEvent: Listener<HarnessEvent>[] = [];

  /** `fresh`: the object's database is new (every store starts empty, reading nothing). */
  constructor(ctx: DurableObjectState, env: Env, fresh = false) {
    this.#ctx = ctx;
    this.#env = env;
    this.work = new BackgroundWork(ctx);
    const sql = ctx.storage.sql;
    // Each store that keeps rows in memory, remembered so a rollback can drop its copy.
    const kept = <S extends { forget(): void }>(store: S): S => {
      this.#copies.push(store);
      return store;
    };
    this.store = kept(new TaskStore(sql, fresh));
    this.log = kept(new EventLog(sql, fresh));
    this.loopState = kept(new LoopStateStore(sql, fresh));
    this.conversation = kept(new ConversationStore(sql, fresh, () => noteOverlay(this.hookState)));
    this.hookState = kept(new SqlHookState(sql, fresh));
    this.pending = kept(new PendingStore(sql, fresh));
    this.children = new ChildrenStore(sql);
    this.modelCalls = new ModelCallStore(sql);
    this.scheduler = kept(new Scheduler(ctx.storage, fresh));
    this.contextLink = kept(new ContextLinkStore(sql, fresh));
    this.outboxSource = outboxSourceOf(this.store, this.loopState);
    this.outbox = new Outbox(env.DB, env.FILES, this.scheduler, this.outboxSource);
    this.push = kept(new PushStore(sql, fresh));
    this.pushSender = new PushSender(
      this.push,
      this.scheduler,
      env,
      () => this.store.record?.id ?? "",
      (work) => this.background(work),
      () => taskTraceHeaders(this.store.record),
    );
    this.log.subscribe((entry) => this.subscribers.broadcast(entry));
  }

  /** Calls `listener` each time the task settles, after its status is written. */
  onSettled(listener: Listener<Settlement>): void {
    this.#onSettled.push(listener);
  }

  /** Calls `listener` with each harness event published while the task works. */
  onHarnessEvent(listener: Listener<HarnessEvent>): void {
    this.#onHarnessEvent.push(listener);
  }

  #announce<T>(listeners: Listener<T>[], value: T): void {
    for (const listener of listeners) {
      const work = listener(value);
      if (work) this.background(work);
    }
  }

  /**
   * Runs `fn` as one SQLite transaction. If it throws, SQLite rolls back, and so do the stores'
   * in-memory copies (read again from SQLite).
   */
  transaction<T>(fn: () => T): T {
    try {
      return this.#ctx.storage.transactionSync(fn);
    } catch (error) {
      for (const store of this.#copies) store.forget();
      throw error;
    }
  }

  /**
   * Runs `fn` (synchronous) so that the events it appends, and a task row it creates, are written
   * in one statement each when it returns (EventLog.batch, TaskStore.batch).
   */
  batch<T>(fn: () => T): T {
    return this.log.batch(() => this.store.batch(fn));
  }

  /** The agent definition by name, on `DEFAULT_MODEL` when its file names no model. */
  agent(name: string): AgentDefinition {
    const agent = currentAgents().get(name);
    if (!agent) throw new Error(`unknown agent ${name}`);
    return withDefaultModel(agent, loadConfig(this.#env).defaultModel);
  }

  /** The task with partial artifacts still streaming; `historyLength` per spec 3.2.4. */
  snapshot(historyLength?: number): Task {
    return this.store.toTask(historyLength, this.#partialAnswer());
  }

  /** Resolves once the task ends or waits for input. */
  async settled(): Promise<void> {
    const state = this.store.record?.state;
    if (state && !isSettled(state))
      await new Promise<void>((resolve) => this.#waiters.add(resolve));
  }

  /**
   * Moves the task to `state` (or re-announces a working status with a message), emits the
   * status event, syncs the index on a state change, and settles waiters and streams.
   */
  setStatus(
    state: TaskStateName,
    options: {
      text?: string;
      message?: Message;
      metadata?: Record<string, unknown>;
      /** Work the conversation's release waits for (the end note in the workspace). */
      releaseAfter?: Promise<void>;
    } = {},
  ): void {
    const record = this.store.record;
    if (!record) return;
    const changed = record.state !== state;
    if (changed) transition(record.state, state);
    const message =
      options.message ?? (options.text === undefined ? undefined : this.agentMessage(options.text));
    const usage = usageMetadata(record.metadata, this.loopState.get().usage);
    const status = { state, timestamp: new Date().toISOString(), ...(message ? { message } : {}) };
    const queued = this.transaction(() => {
      this.store.update(status, { ...record.metadata, ...options.metadata, ...usage });
      const event = {
        statusUpdate: {
          taskId: record.id,
          contextId: record.contextId,
          status,
          ...(isSettled(state) ? { metadata: { traceId: record.traceId, ...usage } } : {}),
        },
      };
      this.log.append(event);
      // Each state change is queued for every push config in the same transaction.
      const configs = changed ? this.push.configs() : [];
      if (configs.length === 0) return false;
      const task = this.snapshot(PUSH_HISTORY_LENGTH);
      this.push.enqueue(
        state,
        configs.map((config) => ({
          config,
          ...pushBody(config.protocol, task, event, isSettled(state)),
        })),
        Date.now(),
      );
      return true;
    });
    if (queued) this.background(this.pushSender.wake());
    if (changed) this.background(this.outbox.syncIndex());
    if (isSettled(state)) {
      this.#announce(this.#onSettled, {
        state,
        releaseAfter: options.releaseAfter ?? Promise.resolve(),
      });
      this.subscribers.closeAll();
      for (const resolve of this.#waiters) resolve();
      this.#waiters.clear();
    }
    if (isTerminal(state)) this.background(this.outbox.exportArtifacts());
  }

  /**
   * Publishes a harness event (tool call, plan, hook intervention...) as a working status update
   * with the event's data part, and keeps it in the task history. A `progress` event also
   * refreshes the task's `progress` artifact.
   */
  emitHarnessEvent(event: HarnessEvent): void {
    const record = this.store.record;
    if (record?.state !== "TASK_STATE_WORKING") return;
    const message = harnessEventMessage(record.agent, event, {
      taskId: record.id,
      contextId: record.contextId,
    });
    this.transaction(() => {
      this.store.appendHistory(message);
      this.setStatus("TASK_STATE_WORKING", { message });
      if (event.kind === "progress" && typeof event.detail === "object") {
        const parts = [{ data: event.detail, mediaType: "application/json" }];
        emitArtifact(
          this,
          { artifactId: PROGRESS_ARTIFACT_ID, name: "PROGRESS.json", parts },
          { lastChunk: true },
        );
      }
    });
    this.#announce(this.#onHarnessEvent, event);
  }

  /** A message from the agent in this task: a text, or the given parts. */
  agentMessage(content: string | Part[]): Message {
    const record = this.store.record;
    return {
      messageId: crypto.randomUUID(),
      role: "ROLE_AGENT",
      parts: typeof content === "string" ? [{ text: content }] : content,
      ...(record ? { taskId: record.id, contextId: record.contextId } : {}),
    };
  }

  /** Emits a chunk of the answer artifact (append, or replace when `append` is false). */
  emitAnswerChunk(text: string, append: boolean, lastChunk: boolean): void {
    const record = this.store.record;
    if (record) this.log.append(answerChunk(record, text, append, lastChunk));
  }

  /** Stores what was streamed of the answer as the task's artifact (cancel, failure). */
  keepPartialAnswer(): void {
    const streamed = streamedAnswer(this.store.record, this.loopState.get());
    if (streamed) this.store.putArtifact(streamed);
  }

  /** The answer still streaming, for snapshots of a task that has not ended. */
  #partialAnswer(): Artifact[] {
    const record = this.store.record;
    const streamed =
      record && !isTerminal(record.state) ? streamedAnswer(record, this.loopState.get()) : null;
    return streamed ? [streamed] : [];
  }

  /** Keeps `work` alive after the current call returns; its failure is logged. */
  background(work: Promise<void>): void {
    this.work.keep(work);
  }
}
