/**
 * The task's pending tool calls (at most one set: the turn whose call waits for an answer), in
 * the object's SQLite so a wait survives restarts. The set holds tool results and conversation
 * turns, so when long it is stored in pieces (store/long-values.ts).
 */
import type { PendingCalls, Resolution } from "../../loop/calls/suspension.ts";
import { storedJson } from "../../platform/stored-json.ts";
import { LongValues } from "../../store/long-values.ts";
import { CopyingStore, RowCopy, upsertRow } from "../../store/row-copy.ts";

/** The key of the long set (store/long-values.ts). */
const PENDING_KEY = "pending_calls";

/** Reads and writes the `pending_calls` row (kept in memory: the object is its only writer). */
export class PendingStore extends CopyingStore<PendingCalls | null> {
  readonly #long: LongValues;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    const long = new LongValues(sql);
    super(
      sql,
      new RowCopy(
        () => {
          const row = sql
            .exec<{ json: string }>("SELECT json FROM pending_calls WHERE id = 1")
            .toArray()[0];
          return row ? storedJson<PendingCalls>(long.get(PENDING_KEY, row.json)) : null;
        },
        fresh ? null : undefined,
      ),
    );
    this.#long = long;
  }

  /** A copy of the waiting calls (the caller may change it), or null. */
  get(): PendingCalls | null {
    const pending = this.copy.value;
    return pending === null ? null : structuredClone(pending);
  }

  set(pending: PendingCalls | null): void {
    const held = this.copy.value !== null;
    if (pending === null) {
      if (held) this.#long.drop("SELECT ?", PENDING_KEY);
      this.sql.exec("DELETE FROM pending_calls WHERE id = 1");
    } else {
      const json = this.#long.put(PENDING_KEY, JSON.stringify(pending), held);
      upsertRow(this.sql, "pending_calls", ["id"], { id: 1, json });
    }
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
