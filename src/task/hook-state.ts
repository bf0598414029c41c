/**
 * Durable key/value state for hooks, in the task object's SQLite, so a hook's counters survive a
 * restart of the object mid-task.
 */
import type { HookState } from "../loop/contracts.ts";

/** {@link HookState} backed by the `hook_state` table. */
export class SqlHookState implements HookState {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  get<T>(hook: string, key: string): T | undefined {
    const row = this.#sql
      .exec<{ value_json: string }>(
        "SELECT value_json FROM hook_state WHERE hook = ? AND key = ?",
        hook,
        key,
      )
      .toArray()[0];
    return row ? (JSON.parse(row.value_json) as T) : undefined;
  }

  set(hook: string, key: string, value: unknown): void {
    this.#sql.exec(
      `INSERT INTO hook_state (hook, key, value_json) VALUES (?, ?, ?)
       ON CONFLICT (hook, key) DO UPDATE SET value_json = excluded.value_json`,
      hook,
      key,
      JSON.stringify(value),
    );
  }
}
