/**
 * Everything a task object holds, built once per object instance on its storage: its stores
 * (record, history, event log, conversation, loop counters, hook state, schedule, push configs),
 * the one unit of work their writes share (write-unit.ts), its live streams and waiters, what it
 * sends out (the outbox, push deliveries) and keeps alive in the background, and what it knows
 * of the current request in memory only. It reads and writes; it announces nothing (a status
 * change and its event are task-runtime.ts).
 */
import { type AgentDefinition, withDefaultModel } from "../../agents/identity.ts";
import { currentAgents } from "../../agents/overrides.ts";
import { loadConfig } from "../../config/config.ts";
import { isSettled, isTerminal } from "../../protocol/task-states.ts";
import type { Artifact, Task } from "../../protocol/wire.ts";
import { PushSender } from "../../push/push-sender.ts";
import { PushStore } from "../../push/push-store.ts";
import { Scheduler } from "../../store/scheduler.ts";
import { ModelCallStore } from "../../trace/model-calls.ts";
import { ModelRequestStore } from "../../trace/model-requests.ts";
import { taskTraceHeaders } from "../../trace/task-trace.ts";
import type { BudgetHint } from "../../users/limits.ts";
import { ChildrenStore } from "../store/children.ts";
import { ContextLinkStore } from "../store/context-link.ts";
import { ConversationStore } from "../store/conversation-store.ts";
import { noteOverlay } from "../store/environment-note.ts";
import { EventLog } from "../store/event-log.ts";
import { SqlHookState } from "../store/hook-state.ts";
import { LoopStateStore } from "../store/loop-state.ts";
import { PendingStore } from "../store/pending-store.ts";
import { TaskStore } from "../store/task-store.ts";
import { SqlToolJournal } from "../store/tool-journal.ts";
import { WriteUnit } from "../store/write-unit.ts";
import { streamedAnswer } from "./answer-artifact.ts";
import { BackgroundWork } from "./background.ts";
import { HeldGrant } from "./held-grant.ts";
import { Outbox, type OutboxSource, outboxSourceOf } from "./outbox.ts";
import { Waiters } from "./status-change.ts";
import { Subscribers } from "./subscribers.ts";

/** A task's stores and what it holds in memory. */
export class TaskState {
  /** The task's one way of grouping writes (write-unit.ts). */
  readonly unit: WriteUnit;
  readonly store: TaskStore;
  readonly log: EventLog;
  readonly loopState: LoopStateStore;
  readonly conversation: ConversationStore;
  readonly hookState: SqlHookState;
  readonly pending: PendingStore;
  /** The tool calls of the turn, each as it starts and ends (tool-journal.ts). */
  readonly journal: SqlToolJournal;
  readonly children: ChildrenStore;
  /** Each model call with its tokens (the trace's model spans, trace/model-calls.ts). */
  readonly modelCalls: ModelCallStore;
  /** The bodies of the latest model requests, as sent (trace/model-requests.ts). */
  readonly modelRequests: ModelRequestStore;
  readonly scheduler: Scheduler;
  readonly contextLink: ContextLinkStore;
  readonly push: PushStore;
  /** Live streams of the task's events (they hear what the event log commits). */
  readonly subscribers = new Subscribers();
  /** Callers waiting for the task to settle. */
  readonly waiters = new Waiters();
  /** What the outbox sends: the index row and finished artifacts, derived from current state. */
  readonly outboxSource: OutboxSource;
  outbox: Outbox;
  readonly pushSender: PushSender;
  /** What the task keeps alive after a call returns ({@link background}); erasure waits for it. */
  readonly work: BackgroundWork;
  /** The owner's budget overrides the latest message's request found (in memory only). */
  budgetHint: BudgetHint | null = null;
  /** The budget grant held for the next model call (held-grant.ts; in memory only). */
  readonly grant: HeldGrant;
  /**
   * The owner is new with this task (a conversation the server opened for an anonymous caller):
   * it has no workspace files and no memory to read yet. In memory only: a restarted object reads.
   */
  newOwner = false;
  readonly #env: Env;

  /** `fresh`: the object's database is new (every store starts empty, reading nothing). */
  constructor(ctx: DurableObjectState, env: Env, fresh = false) {
    this.#env = env;
    this.work = new BackgroundWork(ctx);
    this.grant = new HeldGrant(env, (work) => this.background(work));
    const sql = ctx.storage.sql;
    const unit = WriteUnit.of(ctx.storage);
    this.unit = unit;
    // Each store that keeps rows in memory joins the unit, so a rollback drops its copy.
    const kept = <S extends { forget(): void }>(store: S): S => unit.join(store);
    this.store = new TaskStore(sql, unit, fresh);
    this.log = new EventLog(sql, unit, fresh);
    this.loopState = kept(new LoopStateStore(sql, fresh));
    this.conversation = kept(new ConversationStore(sql, fresh, () => noteOverlay(this.hookState)));
    this.hookState = kept(new SqlHookState(sql, fresh));
    this.pending = kept(new PendingStore(sql, fresh));
    this.journal = new SqlToolJournal(sql);
    this.children = new ChildrenStore(sql);
    this.modelCalls = new ModelCallStore(sql);
    this.modelRequests = new ModelRequestStore(sql);
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
    if (state && !isSettled(state)) await this.waiters.next();
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
