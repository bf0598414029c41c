/**
 * The task's pending tool calls (at most one set: the turn whose call waits for an answer), in
 * the object's SQLite so a wait survives restarts.
 */
import type { PendingCalls, Resolution } from "../loop/suspension.ts";

/** Reads and writes the `pending_calls` row. */
export class PendingStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  get(): PendingCalls | null {
    const row = this.#sql
      .exec<{ json: string }>("SELECT json FROM pending_calls WHERE id = 1")
      .toArray()[0];
    return row ? (JSON.parse(row.json) as PendingCalls) : null;
  }

  set(pending: PendingCalls | null): void {
    if (pending === null) {
      this.#sql.exec("DELETE FROM pending_calls WHERE id = 1");
      return;
    }
    this.#sql.exec(
      `INSERT INTO pending_calls (id, json) VALUES (1, ?)
       ON CONFLICT (id) DO UPDATE SET json = excluded.json`,
      JSON.stringify(pending),
    );
  }

  /** Records the answer to the waiting call; false when nothing waits or it is answered. */
  resolve(resolution: Resolution): boolean {
    const pending = this.get();
    if (!pending || pending.resolution) return false;
    this.set({ ...pending, resolution });
    return true;
  }
}
