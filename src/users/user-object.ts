/**
 * The user Durable Object: one per principal (a user id, `anonymous`, or `ip:<address>` for
 * unauthenticated callers), the single place where counts are kept. Messages per minute (a
 * sliding window) and concurrent streams (slots), leased in slices to the isolates that admit
 * requests (admission-ledger.ts, admission-lease.ts: a limit is not exceeded, and a slice an
 * isolate did not use holds its places until its lease ends), and token budgets per day and month, spent by reserving
 * before a model call and settling with the real usage after it (budget-ledger.ts), so concurrent
 * tasks can never overspend (no check-then-spend race). Days and months are UTC. Its tables are created
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
import {
  AdmissionLedger,
  type Lease,
  type LeaseAsk,
  WINDOW_MS,
  windowRoom,
} from "./admission-ledger.ts";
import { BudgetLedger, type BudgetRefusal, dayOf, monthOf } from "./budget-ledger.ts";

export type { Lease, LeaseAsk, LeaseUse } from "./admission-ledger.ts";
export type { BudgetRefusal } from "./budget-ledger.ts";

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
  // The admission a grant was reserved with, in versions that made grants at the edge: its time,
  // its message's place in the window (moved into the window below; no longer written).
  "ALTER TABLE reservations ADD COLUMN admitted_at INTEGER",
  // An isolate's lease of places in the window (users/admission-lease.ts): one row for them all.
  "ALTER TABLE admissions ADD COLUMN n INTEGER NOT NULL DEFAULT 1",
  // The places earlier versions kept in their grants' reservations, moved into the window once.
  `INSERT OR IGNORE INTO admissions (at, call, n)
     SELECT admitted_at, key, 1 FROM reservations WHERE admitted_at IS NOT NULL`,
];

/** A principal's counters. */
export class UserObject extends HarnessObject {
  readonly #sql: SqlStorage;
  #schema!: Schema;
  #calls!: RecentCalls;
  readonly #budgets: BudgetLedger;
  readonly #admissions: AdmissionLedger;

  constructor(ctx: DurableObjectState, rawEnv: Env) {
    super(ctx, rawEnv, "user");
    this.#sql = ctx.storage.sql;
    this.#budgets = new BudgetLedger(this.#sql, () => this.#schema.stored);
    this.#admissions = new AdmissionLedger(this.#sql);
  }

  /** Brings the counters' tables to the newest schema (none yet: left without). */
  protected override open(): void {
    this.#schema = Schema.open(this.#sql, USER_MIGRATIONS);
    this.#calls = new RecentCalls(this.#sql, () => this.#schema.ensure());
  }

  /** Admits a request and leases its isolate slices (admission-ledger.ts). */
  lease(call: string, ask: LeaseAsk): Lease {
    this.#schema.ensure();
    return this.#admissions.lease(call, ask, Date.now());
  }

  /**
   * The previous version's admission, for its edges still running during a rolling deploy: the
   * request admitted as {@link lease} admits it, with no places leased ahead and no budget grant
   * (a task reserves its own: users/budget-grant.ts).
   */
  admit(
    perMinute: number,
    call?: string,
    stream?: { max: number; leaseMs: number },
  ):
    | { ok: true; lease?: string }
    | { ok: false; retryAfterSeconds: number }
    | { ok: false; streams: number } {
    const ask = { perMinute, extra: 0, ttlMs: 0 };
    const answer = this.lease(call ?? crypto.randomUUID(), {
      ...ask,
      ...(stream ? { stream: { ...stream, spare: false } } : {}),
    });
    if (!answer.ok) return answer;
    return answer.slot === undefined ? { ok: true } : { ok: true, lease: answer.slot };
  }

  /** A spare slot made a stream's own, with a new spare (admission-ledger.ts). */
  takeSpare(
    slot: string,
    leaseMs: number,
    call: string,
    spare?: { max: number; ttlMs: number },
  ): { held: boolean; spare: string | null } {
    this.#schema.ensure();
    return this.#admissions.takeSpare(slot, leaseMs, call, spare, Date.now());
  }

  /** Withdraws a lease whose answer never reached its isolate (admission-ledger.ts). */
  withdraw(call: string): void {
    if (this.#schema.stored) this.#admissions.withdraw(call);
  }

  /** Frees a stream's slot. */
  closeStream(lease: string): void {
    if (this.#schema.stored) this.#admissions.closeStream(lease);
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
      this.#schema.ensure();
      const room = windowRoom(this.#sql, "auth_attempts", perMinute, now);
      if (!room.ok) return room;
      const attempt = crypto.randomUUID();
      this.#sql.exec("INSERT INTO auth_attempts (id, at) VALUES (?, ?)", attempt, now);
      // A set alarm rings by the oldest attempt's end of minute (see alarm()).
      if ((await this.ctx.storage.getAlarm()) === null)
        await this.ctx.storage.setAlarm(now + WINDOW_MS);
      return { ok: true as const, attempt };
    });
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
