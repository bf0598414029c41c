/**
 * The user Durable Object: one per principal (a user id, `anonymous`, or `ip:<address>` for
 * unauthenticated callers), the single place where counts must be exact. Messages per minute (a
 * sliding window), concurrent streams (leases), and token budgets per day and month, spent by
 * reserving before a model call and settling with the real usage after it (budget-ledger.ts), so concurrent tasks
 * can never overspend (no check-then-spend race). Days and months are UTC. Its tables are created
 * by its first count: reading the usage of a principal never counted writes nothing. The objects
 * named `auth:ip:<address>` count credential attempts that were not found good
 * (auth/failure-throttle.ts); an alarm drops them after the minute and erases an object left
 * holding no counts at all, so a flood of guesses leaves nothing behind. A delegated
 * principal's object also remembers the ids (`jti`) of the delegation tokens it accepted until
 * they expire, so none is accepted twice (auth/delegated.ts).
 */
import { HarnessObject } from "../platform/harness-object.ts";
import { RECENT_CALLS_TABLE, RecentCalls } from "../platform/recent-calls.ts";
import { Schema, withoutRowid } from "../store/sqlite-migrations.ts";
import { BudgetLedger, type BudgetRefusal, dayOf, monthOf } from "./budget-ledger.ts";

export type { BudgetRefusal } from "./budget-ledger.ts";

/**
 * What {@link UserObject.admit} answers: admitted (with the stream's lease when one was asked
 * for, and the tokens of the budget grant when one was asked for and the budgets held it), or
 * refused for the message rate (when a place frees) or for the open streams (their limit).
 */
export type Admission =
  | { ok: true; lease?: string; granted?: number }
  | { ok: false; retryAfterSeconds: number }
  | { ok: false; streams: number };

/** The object's migrations (exported for the test that holds a new object's schema equal). */
export const USER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE messages (at INTEGER NOT NULL);
   CREATE INDEX messages_at ON messages (at);
   CREATE TABLE streams (lease TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
   CREATE TABLE spent (period TEXT PRIMARY KEY, tokens INTEGER NOT NULL);
   CREATE TABLE reservations (key TEXT PRIMARY KEY, tokens INTEGER NOT NULL, day TEXT NOT NULL,
     month TEXT NOT NULL, expires_at INTEGER NOT NULL);`,
  `CREATE TABLE auth_attempts (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
   CREATE INDEX auth_attempts_at ON auth_attempts (at);`,
  `CREATE TABLE seen_tokens (jti TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, use TEXT NOT NULL);`,
  // The idempotency keys of the counting calls (platform/recent-calls.ts).
  RECENT_CALLS_TABLE,
  // Small rows keyed by text, written on every task's path: one row written per insert, not two.
  withoutRowid("recent_calls"),
  withoutRowid("reservations"),
  withoutRowid("streams"),
  withoutRowid("spent"),
  // An admitted message's idempotency key (admit: its retry finds it here, not in recent_calls).
  "ALTER TABLE messages ADD COLUMN call TEXT",
  // A settled reservation, kept until its expiry: a retried settlement finds it (settle).
  "ALTER TABLE reservations ADD COLUMN settled INTEGER NOT NULL DEFAULT 0",
  // The admission window keyed by its time and call: an admitted message writes one row, not a
  // row and its time's index entry. A message admitted without a key gets one of its own.
  `CREATE TABLE admissions (at INTEGER NOT NULL, call TEXT NOT NULL, PRIMARY KEY (at, call))
     WITHOUT ROWID;
   INSERT OR IGNORE INTO admissions (at, call)
     SELECT at, IFNULL(call, lower(hex(randomblob(16)))) FROM messages;
   DROP TABLE messages`,
  // The admission a grant was reserved with (admit): its time, for the message window, so that
  // an admitted message with a grant writes its reservation's row alone.
  "ALTER TABLE reservations ADD COLUMN admitted_at INTEGER",
];

const WINDOW_MS = 60_000;

/**
 * A budget grant asked of an admission: `tokens` reserved under the call's key, if the day and
 * month budgets (`dayLimit`, `monthLimit`; 0 = unlimited) hold them (users/budget-grant.ts).
 */
export interface GrantAsk {
  tokens: number;
  dayLimit: number;
  monthLimit: number;
}

/** A principal's counters. */
export class UserObject extends HarnessObject {
  readonly #sql: SqlStorage;
  #schema!: Schema;
  #calls!: RecentCalls;
  readonly #budgets: BudgetLedger;

  constructor(ctx: DurableObjectState, rawEnv: Env) {
    super(ctx, rawEnv, "user");
    this.#sql = ctx.storage.sql;
    this.#budgets = new BudgetLedger(this.#sql, () => this.#schema.stored);
  }

  /** Brings the counters' tables to the newest schema (none yet: left without). */
  protected override open(): void {
    this.#schema = Schema.open(this.#sql, USER_MIGRATIONS);
    this.#calls = new RecentCalls(this.#sql, () => this.#schema.ensure());
  }

  /**
   * Admits one request in one call: a message if fewer than `perMinute` came in the last minute
   * (0: not counted), and with `stream` a stream lease if fewer than `stream.max` are open (the
   * lease ends with closeStream or `stream.leaseMs`). Refused on either, it counts nothing. With
   * `grant` and a `call` key, an admitted request also reserves the grant's tokens under that key
   * when the budgets hold them (else it is admitted without: a grant never refuses a request);
   * the task the request reaches takes the reservation as its first model call's, or releases it
   * (users/budget-grant.ts). `call`: the call's idempotency key, kept in the rows it writes (the
   * message's, the lease and the grant, which are named by it): a retry of an admitted call finds
   * them and is answered as the first attempt was, counting nothing more; a refused call wrote
   * nothing and is simply asked again.
   */
  admit(
    perMinute: number,
    call?: string,
    stream?: { max: number; leaseMs: number },
    grant?: GrantAsk,
  ): Admission {
    const now = Date.now();
    this.#schema.ensure();
    const admitted = call === undefined ? null : this.#admitted(call, stream !== undefined);
    if (admitted) return admitted;
    const full = perMinute > 0 ? this.#windowFull("admissions", perMinute, now) : null;
    if (full) return full;
    if (stream) {
      this.#sql.exec("DELETE FROM streams WHERE expires_at <= ?", now);
      const open = this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM streams").one().n;
      if (open >= stream.max) return { ok: false, streams: stream.max };
    }
    const granted =
      grant &&
      call !== undefined &&
      this.#budgets.reserve(call, grant.tokens, grant, now, perMinute > 0 ? now : undefined).ok
        ? { granted: grant.tokens }
        : {};
    // The message's place in the window: its grant's reservation when it has one, else a row.
    if (perMinute > 0 && granted.granted === undefined)
      this.#sql.exec(
        "INSERT INTO admissions (at, call) VALUES (?, ?)",
        now,
        call ?? crypto.randomUUID(),
      );
    if (!stream) return { ok: true, ...granted };
    const lease = call ?? crypto.randomUUID();
    this.#sql.exec(
      "INSERT INTO streams (lease, expires_at) VALUES (?, ?)",
      lease,
      now + stream.leaseMs,
    );
    return { ok: true, lease, ...granted };
  }

  /**
   * The answer of the admission keyed `call` if it was admitted (its rows are here), else null.
   * `streamed`: the call asked for a lease (a retry asks for what its first attempt asked).
   */
  #admitted(call: string, streamed: boolean): Admission | null {
    const grant = this.#sql
      .exec<{ tokens: number; settled: number }>(
        "SELECT tokens, settled FROM reservations WHERE key = ?",
        call,
      )
      .toArray()[0];
    const granted = grant && !grant.settled ? { granted: grant.tokens } : {};
    const leased =
      streamed &&
      this.#sql.exec("SELECT 1 FROM streams WHERE lease = ?", call).toArray().length > 0;
    if (leased) return { ok: true, lease: call, ...granted };
    const counted =
      grant !== undefined ||
      this.#sql.exec("SELECT 1 FROM admissions WHERE call = ?", call).toArray().length > 0;
    return counted ? { ok: true, ...granted } : null;
  }

  closeStream(lease: string): void {
    if (this.#schema.stored) this.#sql.exec("DELETE FROM streams WHERE lease = ?", lease);
  }

  /**
   * Admits one credential attempt if fewer than `perMinute` attempts not found good (failures,
   * and attempts still being checked) came in the last minute; the attempt counts as a failure
   * until {@link releaseAttempt} says its credential was good. Exact under concurrent attempts.
   * `call`: the call's idempotency key.
   */
  attempt(
    perMinute: number,
    call?: string,
  ): Promise<{ ok: true; attempt: string } | { ok: false; retryAfterSeconds: number }> {
    return this.#calls.once(call, async () => {
      const now = Date.now();
      const full = this.#windowFull("auth_attempts", perMinute, now);
      if (full) return full;
      const attempt = crypto.randomUUID();
      this.#sql.exec("INSERT INTO auth_attempts (id, at) VALUES (?, ?)", attempt, now);
      // A set alarm rings by the oldest attempt's end of minute (see alarm()).
      if ((await this.ctx.storage.getAlarm()) === null)
        await this.ctx.storage.setAlarm(now + WINDOW_MS);
      return { ok: true as const, attempt };
    });
  }

  /**
   * The refusal when `table` (rows stamped `at`) already holds `perMinute` rows of the last minute
   * (older ones are dropped first), with when a place frees; null when there is room.
   */
  #windowFull(
    table: "admissions" | "auth_attempts",
    perMinute: number,
    now: number,
  ): { ok: false; retryAfterSeconds: number } | null {
    this.#schema.ensure();
    this.#sql.exec(`DELETE FROM ${table} WHERE at <= ?`, now - WINDOW_MS);
    // Admitted messages with a grant are in the window as their reservations (admit).
    const granted =
      table === "admissions"
        ? " UNION ALL SELECT admitted_at AS at FROM reservations WHERE admitted_at > ?"
        : "";
    const rows = this.#sql
      .exec<{ at: number }>(
        `SELECT at FROM ${table}${granted} ORDER BY at LIMIT ?`,
        ...(granted ? [now - WINDOW_MS] : []),
        perMinute,
      )
      .toArray();
    if (rows.length < perMinute) return null;
    const oldest = rows[0]?.at ?? now;
    return {
      ok: false,
      retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)),
    };
  }

  /**
   * Records a delegation token's id until `expiresAt` (epoch ms) for the request `use`; false
   * when another request used it already (a replay). The same `use` again is true (a retried
   * call). An alarm forgets it once expired.
   */
  async firstUse(jti: string, expiresAt: number, use: string): Promise<boolean> {
    this.#schema.ensure();
    const now = Date.now();
    this.#sql.exec("DELETE FROM seen_tokens WHERE expires_at <= ?", now);
    const seen = this.#sql
      .exec<{ use: string }>("SELECT use FROM seen_tokens WHERE jti = ?", jti)
      .toArray()[0];
    if (seen) return seen.use === use;
    this.#sql.exec(
      "INSERT INTO seen_tokens (jti, expires_at, use) VALUES (?, ?, ?)",
      jti,
      expiresAt,
      use,
    );
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > expiresAt) await this.ctx.storage.setAlarm(expiresAt);
    return true;
  }

  /** Forgets an attempt whose credential was good (it was no failure). */
  releaseAttempt(attempt: string): void {
    if (this.#schema.stored) this.#sql.exec("DELETE FROM auth_attempts WHERE id = ?", attempt);
  }

  /**
   * Drops attempts older than the minute (ringing again while younger ones are left), then
   * erases the object if it holds no counts at all (an `auth:` object always ends so).
   */
  override async alarm(): Promise<void> {
    if (!this.#schema.stored) return;
    const now = Date.now();
    this.#sql.exec("DELETE FROM auth_attempts WHERE at <= ?", now - WINDOW_MS);
    this.#sql.exec("DELETE FROM seen_tokens WHERE expires_at <= ?", now);
    const next = this.#sql
      .exec<{ at: number | null }>(
        `SELECT MIN(at) AS at FROM (SELECT MIN(at) + ${WINDOW_MS} AS at FROM auth_attempts
           UNION ALL SELECT MIN(expires_at) FROM seen_tokens)`,
      )
      .one().at;
    if (next !== null) {
      await this.ctx.storage.setAlarm(next);
      return;
    }
    const held = this.#sql
      .exec<{ n: number }>(
        `SELECT (SELECT COUNT(*) FROM admissions WHERE at > ?) + (SELECT COUNT(*) FROM streams)
           + (SELECT COUNT(*) FROM spent) + (SELECT COUNT(*) FROM reservations) AS n`,
        now - WINDOW_MS,
      )
      .one().n;
    if (held === 0) await this.erase();
  }

  /**
   * Reserves `tokens` under key `key` if the day and month budgets allow it (0 = unlimited).
   * A key reserved again replaces its reservation: the key is the call's idempotency key too (a
   * retried reservation counts once).
   */
  reserve(
    key: string,
    tokens: number,
    dayLimit: number,
    monthLimit: number,
  ): { ok: true } | BudgetRefusal {
    this.#schema.ensure();
    return this.#budgets.reserve(key, tokens, { dayLimit, monthLimit }, Date.now());
  }

  /** Settles the reservation `key` with the tokens really spent (budget-ledger.ts). */
  settle(key: string, tokens: number): void {
    const now = Date.now();
    this.#schema.ensure();
    this.ctx.storage.transactionSync(() => this.#budgets.settle(key, tokens, now));
  }

  /** Tokens spent and reserved now, by period. */
  usage(): { day: string; month: string; dayTokens: number; monthTokens: number } {
    const now = Date.now();
    const used = this.#budgets.spent(now);
    return { day: dayOf(now), month: monthOf(now), dayTokens: used.day, monthTokens: used.month };
  }

  /** Forgets everything (privacy erasure). */
  async erase(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.open();
  }
}
