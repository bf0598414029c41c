/**
 * The task's pending tool calls (at most one set: the turn whose call waits for an answer), in
 * the object's SQLite so a wait survives restarts.
 */
import type { PendingCalls, Resolution } from "../loop/suspension.ts";

/** Reads and writes the `pending_calls` row (kept in memory: the object is its only writer). */
export class PendingStore {
  readonly #sql: SqlStorage;
  /** The row's value; undefined until read. */
  #pending: PendingCalls | null | undefined;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    this.#pending = fresh ? null : undefined;
  }

  /** Drops the copy (after a rollback): the next read takes it from SQLite. */
  forget(): void {
    this.#pending = undefined;
  }

  get(): PendingCalls | null {
    if (this.#pending === undefined) {
      const row = this.#sql
        .exec<{ json: string }>("SELECT json FROM pending_calls WHERE id = 1")
        .toArray()[0];
      this.#pending = row ? (JSON.parse(row.json) as PendingCalls) : null;
    }
    return this.#pending === null ? null : structuredClone(this.#pending);
  }

  set(pending: PendingCalls | null): void {
    if (pending === null) {
      this.#sql.exec("DELETE FROM pending_calls WHERE id = 1");
      this.#pending = null;
      return;
    }
    const json = JSON.stringify(pending);
    this.#sql.exec(
      `INSERT INTO pending_calls (id, json) VALUES (1, ?)
       ON CONFLICT (id) DO UPDATE SET json = excluded.json`,
      json,
    );
    this.#pending = JSON.parse(json) as PendingCalls;
  }

  /** Records the answer to the waiting call; false when nothing waits or it is answered. */
  resolve(resolution: Resolution): boolean {
    const pending = this.get();
    if (!pending || pending.resolution) return false;
    this.set({ ...pending, resolution });
    return true;
  }
}
