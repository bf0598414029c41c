/**
 * The context Durable Object: the single writer of one conversation (one per caller, agent and
 * contextId). Tasks join it before they run and release it when they end or pause; it runs them
 * one at a time in arrival order, hands each the turns of the tasks before it, and records each
 * task's turns on release. Joining, releasing and activation are idempotent; an activation that
 * fails is retried from the object's alarm. Its tables are created by its first write (an erased
 * conversation keeps none). A conversation the server opened for a task has no object while that
 * task is its only one: the first join of another task makes it, and first asks that task
 * (named by the contextId, see join.ts) for the conversation and its turns.
 */

import type { ChatMessage } from "../loop/chat-message.ts";
import { HarnessObject } from "../platform/harness-object.ts";
import { log } from "../platform/logging.ts";
import { stubByName } from "../platform/object-stub.ts";
import { storedJson } from "../platform/stored-json.ts";
import { Scheduler } from "../store/scheduler.ts";
import type { Schema } from "../store/sqlite-migrations.ts";
import { ContextStore, contextSchema } from "./context-store.ts";
import {
  firstTaskOf,
  type Handover,
  type JoinInput,
  type JoinResult,
  type ReleaseInput,
} from "./join.ts";

const ACTIVATE = "activate:";

/** A conversation's Durable Object. */
export class ContextObject extends HarnessObject {
  #store!: ContextStore;
  #scheduler!: Scheduler;
  #schema!: Schema;

  constructor(ctx: DurableObjectState, rawEnv: Env) {
    super(ctx, rawEnv, "context");
  }

  /** Opens the conversation's storage (one without tables: nothing to read, nothing written). */
  protected override open(): void {
    this.#schema = contextSchema(this.ctx.storage.sql);
    const fresh = !this.#schema.stored;
    this.#store = new ContextStore(this.ctx.storage.sql, fresh);
    this.#scheduler = new Scheduler(this.ctx.storage, fresh);
  }

  /** One transaction (the first creates the tables); if it throws, the copies are read again. */
  #transaction<T>(fn: () => T): T {
    this.#schema.ensure();
    try {
      return this.ctx.storage.transactionSync(fn);
    } catch (error) {
      this.#store.forget();
      this.#scheduler.forget();
      throw error;
    }
  }

  /** Forgets the conversation entirely (session deletion, privacy erasure, retention). */
  async erase(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.open();
  }

  /** Queues the task; returns whether it holds the conversation now, with the turns it missed. */
  async join(input: JoinInput): Promise<JoinResult> {
    if (!this.#schema.stored && input.key) await this.#takeOver(input.key, input.taskId);
    const store = this.#store;
    const active = this.#transaction(() => {
      store.enqueue(input.taskId);
      store.promote();
      return store.activeTask() === input.taskId;
    });
    if (!active) return { active: false, history: [], seq: input.after };
    const { turns, last } = store.turnsAfter(input.after, input.taskId);
    return { active: true, history: turns, seq: last };
  }

  /** Records the task's turns, frees the conversation and starts the next waiting task. */
  async release(input: ReleaseInput): Promise<void> {
    const store = this.#store;
    const next = this.#transaction(() => {
      if (input.summary) store.summarize(input.summary.through, input.summary.message);
      if (input.turns.length > 0) store.appendRelease(input.taskId, input.upto, input.turns);
      store.dequeue(input.taskId);
      return store.promote();
    });
    if (next) await this.#activate(next);
  }

  /**
   * Before this new object's first join: asks the task the server opened the conversation for
   * (if the contextId names one other than the joining task) to hand it over. Still working, it
   * is queued first; its turns so far come first either way. Nothing else runs in the object
   * meanwhile; a failed call fails the join (the task retries it), leaving the object new.
   */
  async #takeOver(key: string, joining: string): Promise<void> {
    const [, , contextId] = storedJson<[string, string, string]>(key);
    const first = firstTaskOf(contextId);
    if (first === null || first === joining) return;
    const failed = await this.ctx.blockConcurrencyWhile(async () => {
      if (this.#schema.stored) return null;
      try {
        const handover: Handover = await stubByName(this.env.TASKS, first).handOver({ key });
        if (!handover.found) return null;
        try {
          this.#transaction(() => this.#adopt(first, handover, true));
        } catch (error) {
          // Turns too large to store, say: the conversation goes on without them.
          log("error", "conversation turns dropped", { task: first, error: String(error) });
          this.#transaction(() => this.#adopt(first, handover, false));
        }
        return null;
      } catch (error) {
        return error;
      }
    });
    if (failed) throw failed;
  }

  #adopt(taskId: string, handover: Handover & { found: true }, withTurns: boolean): void {
    if (handover.held) this.#store.enqueue(taskId);
    if (withTurns && handover.turns.length > 0)
      this.#store.appendRelease(taskId, handover.upto, handover.turns);
  }

  /** The conversation's turns (for tests and session views). */
  async turns(): Promise<ChatMessage[]> {
    return this.#store.turnsAfter(0).turns.map((t) => t.message);
  }

  /** Retries activations that failed. */
  override async alarm(): Promise<void> {
    for (const entry of this.#scheduler.due(Date.now())) {
      if (entry.id.startsWith(ACTIVATE)) await this.#activate(entry.id.slice(ACTIVATE.length));
      else await this.#scheduler.cancel(entry.id);
    }
    await this.#scheduler.arm();
  }

  async #activate(taskId: string): Promise<void> {
    const job = `${ACTIVATE}${taskId}`;
    if (this.#store.activeTask() !== taskId) {
      if (this.#scheduler.get(job)) await this.#scheduler.cancel(job);
      return;
    }
    try {
      await stubByName(this.env.TASKS, taskId).activate();
      if (this.#scheduler.get(job)) await this.#scheduler.cancel(job);
    } catch (error) {
      const attempts = await this.#scheduler.retry(job, "activate");
      log("warn", "context activation retry", { task: taskId, attempts, error: String(error) });
    }
  }
}
