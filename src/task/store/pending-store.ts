/**
 * The task's pending tool calls (at most one set: the turn whose call waits for an answer), in
 * the object's SQLite so a wait survives restarts.
 */
import type { PendingCalls, Resolution } from "../../loop/calls/suspension.ts";
import { storedJson } from "../../platform/stored-json.ts";
import { CopyingStore, RowCopy, upsertRow } from "../../store/row-copy.ts";

/** Reads and writes the `pending_calls` row (kept in memory: the object is its only writer). */
export class PendingStore extends CopyingStore<PendingCalls | null> {
  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    super(
      sql,
      new RowCopy(
        () => {
          const row = sql
            .exec<{ json: string }>("SELECT json FROM pending_calls WHERE id = 1")
            .toArray()[0];
          return row ? storedJson<PendingCalls>(row.json) : null;
        },
        fresh ? null : undefined,
      ),
    );
  }

  /** A copy of the waiting calls (the caller may change it), or null. */
  get(): PendingCalls | null {
    const pending = this.copy.value;
    return pending === null ? null : structuredClone(pending);
  }

  set(pending: PendingCalls | null): void {
    if (pending === null) this.sql.exec("DELETE FROM pending_calls WHERE id = 1");
    else upsertRow(this.sql, "pending_calls", ["id"], { id: 1, json: JSON.stringify(pending) });
    this.copy.set(pending === null ? null : structuredClone(pending));
  }

  /** Records the answer to the waiting call; false when nothing waits or it is answered. */
  resolve(resolution: Resolution): boolean {
    const pending = this.get();
    if (!pending || pending.resolution) return false;
    this.set({ ...pending, resolution });
    return true;
  }
}
