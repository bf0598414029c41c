/**
 * A task object's one way of grouping writes: a unit of work is one SQLite transaction. Units
 * nest by joining: only the outermost one opens a transaction, and everything written inside it,
 * however deeply nested, commits or rolls back together. Stores that hold rows back until the
 * end (the event log's rows, the task row) write them when the outermost unit's work returns,
 * still inside its transaction; what must happen only once the writes are durable (a stream
 * hearing an event, a waiter waking, a push being sent) is queued with {@link WriteUnit.afterCommit}
 * and runs after the commit, in order, or never if the unit rolls back. After a rollback each
 * member store drops its in-memory copy and its held-back rows. Synchronous; no clock.
 */
import { log } from "../../platform/logging.ts";

/** A store that takes part in units. */
export interface UnitMember {
  /** Writes what it held back in the unit (inside the transaction, before the commit). */
  flush?(): void;
  /** The unit committed: tell whoever waits for what was written. */
  committed?(): void;
  /** The unit rolled back: drop in-memory copies and held-back rows (read SQLite again). */
  forget(): void;
}

/** Runs a function as one SQLite transaction (a Durable Object's `storage.transactionSync`). */
export type Transact = <T>(fn: () => T) => T;

/** The unit of work of one task object's storage. */
export class WriteUnit {
  readonly #transact: Transact;
  readonly #members: UnitMember[] = [];
  #depth = 0;
  #afterCommit: Array<() => void> = [];

  constructor(transact: Transact) {
    this.#transact = transact;
  }

  /** The unit of a Durable Object's storage. */
  static of(storage: DurableObjectStorage): WriteUnit {
    return new WriteUnit((fn) => storage.transactionSync(fn));
  }

  /** Adds a store to every unit from now on; returns it. */
  join<M extends UnitMember>(member: M): M {
    this.#members.push(member);
    return member;
  }

  /** Whether a unit is running (writes now are held or committed with it). */
  get open(): boolean {
    return this.#depth > 0;
  }

  /**
   * Runs `fn` (synchronous) as a unit: inside a running unit it joins it; otherwise it opens a
   * transaction, writes what members held back, commits, then runs what was queued for after the
   * commit. If `fn` (or a write) throws, the transaction rolls back, members forget, nothing
   * queued runs, and the error is thrown on. Do not catch a nested unit's error inside the
   * outer one: the outer unit would commit part of the nested one's writes.
   */
  run<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    this.#depth = 1;
    let result: T;
    try {
      result = this.#transact(() => {
        const value = fn();
        for (const member of this.#members) member.flush?.();
        return value;
      });
    } catch (error) {
      this.#depth = 0;
      this.#afterCommit = [];
      for (const member of this.#members) member.forget();
      throw error;
    }
    this.#depth = 0;
    for (const member of this.#members) member.committed?.();
    const queued = this.#afterCommit;
    this.#afterCommit = [];
    for (const action of queued) {
      // The writes are committed: a failure here must not make the caller think they were not.
      try {
        action();
      } catch (error) {
        log("error", "after-commit action failed", { error: String(error) });
      }
    }
    return result;
  }

  /** Runs `action` once the running unit commits (dropped if it rolls back); now if none runs. */
  afterCommit(action: () => void): void {
    if (this.#depth > 0) this.#afterCommit.push(action);
    else action();
  }
}
