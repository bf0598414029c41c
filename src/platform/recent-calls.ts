/**
 * The idempotency keys an object remembers: a call that changes state carries a key (made once by
 * its caller, the same on every retry, platform/retry.ts), and the object answers a key it has
 * seen with the answer it gave, without running the call again. So a retry after a lost answer
 * cannot count or write twice. A key whose call is still running (the first attempt's answer was
 * lost, the retry arrived meanwhile) waits for that call. Bounded: answers are kept
 * {@link KEEP_MS} and at most {@link KEEP_ROWS} of them, in the object's SQLite table
 * `recent_calls` (in each object's migrations: {@link RECENT_CALLS_TABLE}). A call without a key
 * simply runs.
 */

/** The table's DDL, for an object's migrations. */
export const RECENT_CALLS_TABLE =
  "CREATE TABLE recent_calls (key TEXT PRIMARY KEY, answer TEXT NOT NULL, at INTEGER NOT NULL)";

/** How long an answer is kept: longer than any caller's retries last. */
export const KEEP_MS = 10 * 60_000;
/** At most this many answers are kept (checked at most every {@link PRUNE_EVERY_MS}). */
export const KEEP_ROWS = 1_000;
/** How often the old answers are deleted: not on every call, which would be a statement each. */
export const PRUNE_EVERY_MS = 60_000;

/** The answers of one object's recent keyed calls. */
export class RecentCalls {
  readonly #sql: SqlStorage;
  readonly #ensure: () => void;
  readonly #running = new Map<string, Promise<unknown>>();
  /** Whether the table is known to exist (it is never dropped once made). */
  #tableMade = false;
  #prunedAt = 0;

  /** `ensure` creates the object's tables (this one among them) when it has none yet. */
  constructor(sql: SqlStorage, ensure: () => void) {
    this.#sql = sql;
    this.#ensure = ensure;
  }

  /** The answer of the call keyed `key`: remembered, in flight, or `run`'s (then remembered). */
  async once<T>(key: string | undefined, run: () => T | Promise<T>): Promise<T> {
    if (typeof key !== "string" || key === "") return run();
    // Synchronous up to `#running.set`: two attempts never both find the key new.
    const running = this.#running.get(key);
    if (running) {
      // The first attempt is still running: its answer, once it is remembered.
      await running.catch(() => undefined);
      return this.once(key, run);
    }
    const known = this.#known<T>(key);
    if (known) return known.answer;
    const call = (async () => {
      const answer = await run();
      this.#remember(key, answer);
      return answer;
    })();
    this.#running.set(key, call);
    try {
      return await call;
    } finally {
      this.#running.delete(key);
    }
  }

  /** The answer remembered for `key` (a miss while the object has no tables writes nothing). */
  #known<T>(key: string): { answer: T } | null {
    this.#tableMade ||=
      this.#sql
        .exec<{ n: number }>(
          "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'recent_calls'",
        )
        .one().n > 0;
    if (!this.#tableMade) return null;
    const row = this.#sql
      .exec<{ answer: string }>("SELECT answer FROM recent_calls WHERE key = ?", key)
      .toArray()[0];
    // JSON.parse: the answer was JSON.stringify'd from the same call's value of type T.
    return row ? { answer: JSON.parse(row.answer) as T } : null;
  }

  #remember(key: string, answer: unknown): void {
    this.#ensure();
    const now = Date.now();
    this.#sql.exec(
      "INSERT OR REPLACE INTO recent_calls (key, answer, at) VALUES (?, ?, ?)",
      key,
      JSON.stringify(answer ?? null),
      now,
    );
    this.#tableMade = true;
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = now;
    this.#sql.exec(
      `DELETE FROM recent_calls WHERE at < ? OR key IN
         (SELECT key FROM recent_calls ORDER BY at DESC LIMIT -1 OFFSET ?)`,
      now - KEEP_MS,
      KEEP_ROWS,
    );
  }
}
