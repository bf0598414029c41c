/**
 * A task's status change as one event, and the narrow interfaces through which the task's
 * helpers change its status and publish its events. The runtime writes a change and announces
 * it twice: to listeners that write with it (inside its unit of work, so their writes commit or
 * roll back with the status: the push queue), and, once the unit committed, to listeners that act
 * on it (push delivery, the outbox, streams, waiters, the conversation, the parent, retention).
 * task-parts.ts subscribes them. No I/O here.
 */
import type { HarnessEvent } from "../../loop/contracts.ts";
import type { Message, Part, StreamEvent, TaskStateName } from "../../protocol/wire.ts";

/** One status change, as written. */
export interface StatusChange {
  /** The state before; equal to `state` for a working status announced again with a message. */
  from: TaskStateName;
  state: TaskStateName;
  /** The status event as the task's event log holds it. */
  event: StreamEvent;
  /** Work the conversation's release waits for (the end note in the workspace). */
  releaseAfter: Promise<void>;
}

/** What a status change may carry besides its state. */
export interface StatusOptions {
  text?: string;
  message?: Message;
  metadata?: Record<string, unknown>;
  /** Work the conversation's release waits for (the end note in the workspace). */
  releaseAfter?: Promise<void>;
}

/** Changes the task's status (and makes the agent's messages that go with it). */
export interface StatusWriter {
  /**
   * Moves the task to `state` (or announces a working status again with a message): the record
   * and its event in the running unit of work, the rest once it commits.
   */
  setStatus(state: TaskStateName, options?: StatusOptions): void;
  /** A message from the agent in this task: a text, or the given parts. */
  agentMessage(content: string | Part[]): Message;
}

/** Publishes what the task does while it works, on its streams. */
export interface EventSink {
  /** A harness event (tool call, plan, hook intervention...) as a working status update. */
  emitHarnessEvent(event: HarnessEvent): void;
  /** A chunk of the answer artifact (append, or replace when `append` is false). */
  emitAnswerChunk(text: string, append: boolean, lastChunk: boolean): void;
  /**
   * The answer once more as a working status message marked as its echo, for clients that show
   * only status messages (answer-artifact.ts `answerEcho`); on the streams only, never stored.
   */
  emitAnswerEcho(answer: string, noteFollows: boolean): void;
}

/** A listener's reaction; work it returns is kept alive in the background. */
export type Listener<T> = (value: T) => Promise<void> | undefined;

/** Callers waiting for the task to settle (end, or wait for input). */
export class Waiters {
  readonly #waiting = new Set<() => void>();

  /** Resolves at the next {@link wake}. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => this.#waiting.add(resolve));
  }

  /** Wakes everyone waiting. */
  wake(): void {
    for (const resolve of this.#waiting) resolve();
    this.#waiting.clear();
  }
}
