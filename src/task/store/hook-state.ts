/**
 * Durable key/value state for hooks, in the task object's SQLite, so a hook's counters survive a
 * restart of the object mid-task.
 */
import type { HookState } from "../../loop/contracts.ts";
import { CopyingStore, copyOfMap, upsertRow } from "../../store/row-copy.ts";

/** {@link HookState} backed by the `hook_state` table, with an in-memory copy. */
export class SqlHookState extends CopyingStore<Map<string, unknown>> implements HookState {
  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    super(
      sql,
      copyOfMap<{ hook: string; key: string; value_json: string }, unknown>(
        sql,
        "SELECT hook, key, value_json FROM hook_state",
        (r) => [`${r.hook}\u0000${r.key}`, JSON.parse(r.value_json)],
        fresh,
      ),
    );
  }

  /** A copy of the value (a hook may change what it got without setting it). */
  get<T>(hook: string, key: string): T | undefined {
    const value = this.copy.value.get(`${hook}\u0000${key}`);
    return value === undefined ? undefined : (structuredClone(value) as T);
  }

  set(hook: string, key: string, value: unknown): void {
    const json = JSON.stringify(value);
    upsertRow(this.sql, "hook_state", ["hook", "key"], { hook, key, value_json: json });
    this.copy.value.set(`${hook}\u0000${key}`, JSON.parse(json));
  }
}
