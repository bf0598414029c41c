/**
 * Durable key/value state for hooks, in the task object's SQLite, so a hook's counters survive a
 * restart of the object mid-task.
 */
import type { HookState } from "../loop/contracts.ts";

/** {@link HookState} backed by the `hook_state` table, with an in-memory copy. */
export class SqlHookState implements HookState {
  readonly #sql: SqlStorage;
  /** Values by `hook\u0000key`; null until read. */
  #values: Map<string, unknown> | null;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    this.#values = fresh ? new Map() : null;
  }

  /** Drops the copy (after a rollback): the next read takes it from SQLite. */
  forget(): void {
    this.#values = null;
  }

  /** A copy of the value (a hook may change what it got without setting it). */
  get<T>(hook: string, key: string): T | undefined {
    const value = this.#all().get(`${hook}\u0000${key}`);
    return value === undefined ? undefined : (structuredClone(value) as T);
  }

  set(hook: string, key: string, value: unknown): void {
    const json = JSON.stringify(value);
    this.#sql.exec(
      `INSERT INTO hook_state (hook, key, value_json) VALUES (?, ?, ?)
       ON CONFLICT (hook, key) DO UPDATE SET value_json = excluded.value_json`,
      hook,
      key,
      json,
    );
    this.#all().set(`${hook}\u0000${key}`, JSON.parse(json));
  }

  #all(): Map<string, unknown> {
    this.#values ??= new Map(
      this.#sql
        .exec<{ hook: string; key: string; value_json: string }>(
          "SELECT hook, key, value_json FROM hook_state",
        )
        .toArray()
        .map((r) => [`${r.hook}\u0000${r.key}`, JSON.parse(r.value_json)]),
    );
    return this.#values;
  }
}
