/**
 * A task's side of its conversation: joining the context object (and, once it holds the
 * conversation, putting the turns of earlier tasks and its own waiting messages into its model
 * conversation) and releasing it (handing back its own turns). Calls that fail are retried from
 * the task's schedule, so neither object ever waits forever on the other. A conversation the
 * server opened for this task has no object while the task is its only one: the task holds it
 * without a call and keeps its turns, until a second task's join makes the object, which asks
 * this task for them (handover.ts).
 */
import { contextKey, type JoinResult } from "../../conversations/join.ts";
import { replyFrom } from "../../loop/calls/suspension.ts";
import type { ChatMessage } from "../../loop/chat-message.ts";
import { toUserContent } from "../../loop/prompt/user-content.ts";
import { log } from "../../platform/logging.ts";
import { stubByName } from "../../platform/object-stub.ts";
import type { Part } from "../../protocol/wire.ts";
import type { StatusWriter } from "../runtime/status-change.ts";
import type { TaskState } from "../runtime/task-state.ts";
import { releaseContent, SUMMARY_HOOK, SUMMARY_KEY } from "./release-content.ts";

/** Schedule ids of the retries. */
export const JOIN_JOB = "context:join";
export const RELEASE_JOB = "context:release";
/** Retry of a failed registration (of a conversation a task held before it was first joined). */
export const REGISTER_JOB = "context:register";

/** The status text of a task queued behind another in its conversation. */
const WAITING_TEXT = "Waiting for the previous task in this conversation to finish.";

/** How a join ended (`unusable`: the task got the conversation but could not take its turns in). */
export type JoinOutcome = "active" | "waiting" | "failed" | "unusable";

/**
 * After this many failed releases the turns are dropped (a turn too large for the conversation's
 * storage, say): a conversation must not stay held for good.
 */
const RELEASE_TRIES_WITH_TURNS = 5;

/** The loop entry of a task's first step: when it is due, and its payload (a lease's mark). */
export type FirstStep = { dueAt: number; payload?: unknown };

/** What membership reads and changes in the task. */
export type MemberTask = Pick<
  TaskState,
  | "unit"
  | "store"
  | "contextLink"
  | "pending"
  | "conversation"
  | "hookState"
  | "scheduler"
  | "background"
> &
  StatusWriter;

/** Joins and releases the task's conversation. */
export class ContextMembership {
  readonly #task: MemberTask;
  readonly #contexts: Env["CONTEXTS"];

  constructor(task: MemberTask, contexts: Env["CONTEXTS"]) {
    this.#task = task;
    this.#contexts = contexts;
  }

  #key(): string {
    const record = this.#task.store.record;
    if (!record) throw new Error("no task");
    return contextKey(record.owner, record.agent, record.contextId);
  }

  #stub() {
    return stubByName(this.#contexts, this.#key());
  }

  /**
   * Joins the conversation: holding it, the task starts working; queued, it waits (submitted)
   * until the conversation activates it; if the call failed, the join is retried from the alarm.
   * A conversation the server has just opened is held at once ({@link holdFresh}, then
   * {@link announceHeld}). `firstStep`: the loop entry of the first step (default: due now).
   */
  async enter(freshContext = false, firstStep: FirstStep = { dueAt: Date.now() }): Promise<void> {
    const task = this.#task;
    const { dueAt, payload } = firstStep;
    if (freshContext) {
      this.holdFresh(firstStep);
      await this.announceHeld();
      return;
    }
    const outcome = await this.join();
    if (outcome === "active") {
      task.setStatus("TASK_STATE_WORKING");
      await task.scheduler.schedule("loop", "loop", dueAt, { payload });
    } else if (outcome === "waiting") {
      task.setStatus("TASK_STATE_SUBMITTED", { text: WAITING_TEXT });
    } else if (outcome === "unusable") {
      // Ending the task releases the conversation (with none of its turns): the next task runs.
      const text = "This message could not be added to its conversation, so the task did not run.";
      task.setStatus("TASK_STATE_FAILED", {
        text,
        metadata: { stopReason: "error", error: text },
      });
    }
  }

  /**
   * Asks for the conversation. When the task gets it, the turns it missed and its own messages
   * not yet in its model conversation are appended there. A failed call is retried later.
   */
  async join(): Promise<JoinOutcome> {
    const task = this.#task;
    const record = task.store.record;
    if (!record) return "failed";
    const link = task.contextLink.get();
    // Still the conversation's only task (it has no object): it holds it again, without a call.
    let result: JoinResult = { active: true, history: [], seq: link.contextSeq };
    if (!link.alone) {
      try {
        const input = { taskId: record.id, after: link.contextSeq, key: this.#key() };
        result = await this.#stub().join(input);
      } catch (error) {
        await this.#retry(JOIN_JOB, error);
        return "failed";
      }
      if (!result.active) {
        task.contextLink.patch({ state: "waiting" });
        await this.#done(JOIN_JOB);
        return "waiting";
      }
    }
    try {
      this.#take(result, link.alone);
    } catch (error) {
      // Whatever failed (a row too large to store, say), the conversation must not stay held by
      // a task that cannot run: hold it with nothing to hand back, so ending the task frees it
      // (alone, it holds no object: a later handover drops turns the object cannot store).
      log("error", "conversation not taken", { task: record.id, error: String(error) });
      const upto = task.store.historyAfter(link.releasedUpto).at(-1)?.seq ?? link.releasedUpto;
      const released = link.alone ? {} : { releasedUpto: upto };
      task.contextLink.patch({ state: "active", contextSeq: result.seq, ...released });
      await this.#done(JOIN_JOB);
      return "unusable";
    }
    await this.#done(JOIN_JOB);
    return "active";
  }

  /**
   * A conversation the server opened for this task (the client sent no contextId, and got one
   * named after this task): no one else can name it before this task's first answer, so the
   * task holds it at once, alone, with no earlier turns, and no object is made for it until a
   * second task joins (see handover.ts). Saves the context object on every conversation of
   * one task, and its round trip on every first message.
   */
  claimFresh(): void {
    this.#take({ active: true, history: [], seq: 0 }, true);
  }

  /**
   * Holds a conversation the server has just opened, in one unit of work: the conversation, the
   * working status and the first step's loop entry. Synchronous, so the task's creation and this
   * can be one unit of work; {@link announceHeld} follows.
   */
  holdFresh(firstStep: FirstStep = { dueAt: Date.now() }): void {
    const task = this.#task;
    task.unit.run(() => {
      this.claimFresh();
      task.setStatus("TASK_STATE_WORKING");
      task.scheduler.put("loop", "loop", firstStep.dueAt, { payload: firstStep.payload });
    });
  }

  /** After {@link holdFresh}: the alarm. */
  async announceHeld(): Promise<void> {
    await this.#task.scheduler.arm();
  }

  /**
   * Registers the conversation this task holds with its context object (a join, which a task
   * already queued there answers as it is: safe to repeat). Only a task that held a fresh
   * conversation before such tasks were left alone has one to make.
   */
  async register(): Promise<void> {
    const task = this.#task;
    const record = task.store.record;
    const link = task.contextLink.get();
    if (!record || link.state !== "active" || link.alone) return;
    try {
      const result: JoinResult = await this.#stub().join({ taskId: record.id, after: 0 });
      if (!result.active) {
        // Only if the server-made contextId was guessed: the task keeps running and is released
        // (dequeued) like any other when it ends.
        log("warn", "fresh context already held", { task: record.id });
      }
    } catch (error) {
      await this.#retry(REGISTER_JOB, error);
      return;
    }
    await this.#done(REGISTER_JOB);
  }

  /** Takes the conversation: the turns of earlier tasks, then this task's own messages. */
  #take(result: JoinResult, alone = false): void {
    const task = this.#task;
    const link = task.contextLink.get();
    task.unit.run(() => {
      // A call waiting for the person: their message is its answer, and turns of other tasks
      // wait until the call's result is in the conversation (a tool_use needs its result next).
      const pending = task.pending.get();
      const waiting = pending && !pending.resolution ? pending : null;
      const deferred: { message: ChatMessage; seq: number }[] = [];
      for (const turn of result.history) {
        if (waiting) deferred.push({ message: turn.message as ChatMessage, seq: turn.seq });
        else task.conversation.append(turn.message as ChatMessage, turn.seq);
      }
      let upto = link.conversationUpto;
      const replies: Part[] = [];
      for (const { seq, message } of task.store.historyAfter(link.conversationUpto)) {
        if (message.role === "ROLE_USER") {
          if (waiting) replies.push(...message.parts);
          else task.conversation.append({ role: "user", content: toUserContent(message.parts) });
        }
        upto = seq;
      }
      if (waiting) {
        task.pending.set({
          ...waiting,
          deferred: [...waiting.deferred, ...deferred],
          resolution: replies.length > 0 ? replyFrom(replies) : null,
        });
      }
      task.contextLink.patch({
        state: "active",
        contextSeq: result.seq,
        conversationUpto: upto,
        alone,
      });
    });
  }

  /** Hands the conversation back with the task's turns since its last release (none if it never ran). */
  async release(): Promise<void> {
    const task = this.#task;
    const record = task.store.record;
    const link = task.contextLink.get();
    // Alone, the task keeps its turns for the object a second task's join makes.
    if (!record || link.state === "released" || link.alone) return;
    // Not joined: nothing to hand back, unless a join whose answer was lost may have queued it.
    if (link.state === "none" && !task.scheduler.get(JOIN_JOB)) return;
    // A release must reach the context object after the registration it ends.
    if (task.scheduler.get(REGISTER_JOB)) await this.register();
    if (task.scheduler.get(REGISTER_JOB)) {
      await this.#retry(RELEASE_JOB, new Error("the conversation is not registered yet"));
      return;
    }
    const tries = task.scheduler.get(RELEASE_JOB)?.attempts ?? 0;
    const { turns, upto, summary } = releaseContent(task, link, tries >= RELEASE_TRIES_WITH_TURNS);
    try {
      await this.#stub().release({
        taskId: record.id,
        upto,
        turns,
        ...(summary ? { summary } : {}),
      });
    } catch (error) {
      await this.#retry(RELEASE_JOB, error);
      return;
    }
    task.contextLink.patch({ state: "released", releasedUpto: upto });
    if (summary) task.hookState.set(SUMMARY_HOOK, SUMMARY_KEY, null);
    await this.#done(RELEASE_JOB);
    if (task.scheduler.get(JOIN_JOB)) await this.#done(JOIN_JOB);
  }

  async #retry(job: string, error: unknown): Promise<void> {
    const attempts = await this.#task.scheduler.retry(job, "context");
    log("warn", "context call retry", { job, attempts, error: String(error) });
  }

  async #done(job: string): Promise<void> {
    await this.#task.scheduler.done(job);
  }
}
