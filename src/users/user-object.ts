/**
 * The user Durable Object: one per principal (a user id, `anonymous`, or `ip:<address>` for
 * unauthenticated callers), the single place where counts are kept. Messages per minute (a
 * sliding window) and concurrent streams (slots), leased in slices to the isolates that admit
 * requests (admission-lease.ts: a limit is never exceeded, and a slice an isolate did not use
 * holds its places until its lease ends), and token budgets per day and month, spent by reserving
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
import { BudgetLedger, type BudgetRefusal, dayOf, monthOf } from "./budget-ledger.ts";

export type { BudgetRefusal } from "./budget-ledger.ts";

/**
 * What {@link UserObject.lease} answers: admitted, with the places of the minute's window the
 * isolate holds until `until` (this request's own included), the stream's slot when it asked for
 * one and a spare slot when it asked and one was free; or refused for the message rate (when a
 * place frees) or for the open streams (their limit).
 */
export type Lease =
  | { ok: true; places: number; until: number; slot?: string; spare?: string }
  | { ok: false; retryAfterSeconds: number }
  | { ok: false; streams: number };

/** How an isolate used a lease it holds no more: the places it took, the last at `lastAt`. */
export interface LeaseUse {
  call: string;
  used: number;
  lastAt: number;
}

/** What a request asks of {@link UserObject.lease} (users/admission-lease.ts). */
export interface LeaseAsk {
  /** Messages a minute (0: the request sends none, or they are not counted). */
  perMinute: number;
  /** Places asked for besides the request's own, for the isolate to admit later messages. */
  extra: number;
  /** How long the isolate may use the places and the spare slot. */
  ttlMs: number;
  /** The request's stream: its slot (held `leaseMs`) against `max` open, and a spare or not. */
  stream?: { max: number; leaseMs: number; spare: boolean };
  /** The isolate's ended leases, whose rows now say what they really held. */
  ended?: LeaseUse[];
}

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
  // for the message window (read until such reservations expire; no longer written).
  "ALTER TABLE reservations ADD COLUMN admitted_at INTEGER",
  // An isolate's lease of places in the window (users/admission-lease.ts): one row for them all.
  "ALTER TABLE admissions ADD COLUMN n INTEGER NOT NULL DEFAULT 1",
];

const WINDOW_MS = 60_000;

/**
 * How long past its lease a spare stream slot's row is kept: a stream given it near the lease's
 * end makes it its own (takeSpare) with retries that take less than this.
 */
export const SPARE_GRACE_MS = 30_000;

/** The key of the spare stream slot a lease keyed `call` made. */
const spareOf = (call: string) => `${call}:spare`;

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
   * Admits one request in one call and leases the isolate that asked places for the requests it
   * admits next on its own (users/admission-lease.ts): a message if the minute's window holds
   * fewer than `perMinute` (0: not counted), then up to `extra` more places, all in one row dated
   * `ttlMs` ahead, the latest moment the isolate may use them, so each counts for at least a
   * minute after its use; with `stream`, the request's slot if fewer than `stream.max` are open
   * (held `leaseMs`, until closeStream) and, asked for and with a slot free besides it, a spare
   * slot the isolate may give a later stream until `ttlMs` (its row kept {@link SPARE_GRACE_MS}
   * longer: takeSpare). Refused on either, it counts nothing. `ended` corrects the rows of the
   * isolate's earlier leases to what they held. `call`: the call's
   * idempotency key, kept in the rows it writes: a retry finds them and is answered alike.
   */
  lease(call: string, ask: LeaseAsk): Lease {
    const now = Date.now();
    this.#schema.ensure();
    const leased = this.#leased(call, ask.stream !== undefined);
    if (leased) return leased;
    for (const use of ask.ended ?? []) this.#correct(use);
    const room = ask.perMinute > 0 ? this.#windowRoom(ask.perMinute, now) : null;
    if (room && !room.ok) return room;
    const { stream } = ask;
    const open = stream ? this.#openStreams(now) : 0;
    if (stream && open >= stream.max) return { ok: false, streams: stream.max };
    const until = now + ask.ttlMs;
    const places = room ? 1 + Math.max(0, Math.min(ask.extra, room.free - 1)) : 0;
    if (places > 0)
      this.#sql.exec("INSERT INTO admissions (at, call, n) VALUES (?, ?, ?)", until, call, places);
    if (!stream) return { ok: true, places, until };
    this.#slot(call, now + stream.leaseMs);
    // A spare never takes the last free slot: another client's stream may need it.
    if (!stream.spare || open + 3 > stream.max) return { ok: true, places, until, slot: call };
    this.#slot(spareOf(call), until + SPARE_GRACE_MS);
    return { ok: true, places, until, slot: call, spare: spareOf(call) };
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

  /**
   * A spare slot an isolate gave a stream (`slot`): held `leaseMs` from now, as the stream's own
   * (`held`; false if its row was gone and no slot is free under `spare.max`: the stream is not
   * counted); with `spare` (and two slots free under `spare.max`), a new spare under the key
   * `call`, usable until `spare.ttlMs` from now. Answers the new spare's key, or null.
   */
  takeSpare(
    slot: string,
    leaseMs: number,
    call: string,
    spare?: { max: number; ttlMs: number },
  ): { held: boolean; spare: string | null } {
    const now = Date.now();
    this.#schema.ensure();
    const made = this.#sql.exec("SELECT 1 FROM streams WHERE lease = ?", call).toArray();
    if (made.length > 0) return { held: true, spare: call }; // a retry
    const open = this.#openStreams(now);
    const kept = this.#sql.exec("SELECT 1 FROM streams WHERE lease = ?", slot).toArray();
    const held = kept.length > 0 || spare === undefined || open < spare.max;
    if (held) this.#slot(slot, now + leaseMs);
    const opened = open + (kept.length > 0 || !held ? 0 : 1);
    if (!spare || opened + 2 > spare.max) return { held, spare: null };
    this.#slot(call, now + spare.ttlMs + SPARE_GRACE_MS);
    return { held, spare: call };
  }

  /** Holds the stream slot `lease` until `until`. */
  #slot(lease: string, until: number): void {
    this.#sql.exec(
      `INSERT INTO streams (lease, expires_at) VALUES (?, ?)
       ON CONFLICT (lease) DO UPDATE SET expires_at = excluded.expires_at`,
      lease,
      until,
    );
  }

  /** The stream slots held now (expired ones dropped). */
  #openStreams(now: number): number {
    this.#sql.exec("DELETE FROM streams WHERE expires_at <= ?", now);
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM streams").one().n;
  }

  /**
   * An ended lease's row made to say what it held: `used` places, dated its last use (no use:
   * gone). Only ever smaller and earlier: a correction never frees a place still in use.
   */
  #correct(use: LeaseUse): void {
    if (use.used <= 0) {
      this.#sql.exec("DELETE FROM admissions WHERE call = ?", use.call);
      return;
    }
    this.#sql.exec(
      "UPDATE admissions SET n = MIN(n, ?), at = MIN(at, ?) WHERE call = ?",
      use.used,
      use.lastAt,
      use.call,
    );
  }

  /**
   * The answer of the lease keyed `call` if it was admitted (its rows are here), else null.
   * `streamed`: the call asked for a slot (a retry asks for what its first attempt asked).
   */
  #leased(call: string, streamed: boolean): Lease | null {
    const row = this.#sql
      .exec<{ at: number; n: number }>("SELECT at, n FROM admissions WHERE call = ?", call)
      .toArray()[0];
    const slots = streamed
      ? this.#sql
          .exec<{ lease: string; expires_at: number }>(
            "SELECT lease, expires_at FROM streams WHERE lease IN (?, ?)",
            call,
            spareOf(call),
          )
          .toArray()
      : [];
    const slot = slots.find((s) => s.lease === call);
    if (!row && !slot) return null;
    const spare = slots.find((s) => s.lease !== call);
    return {
      ok: true,
      places: row?.n ?? 0,
      until: row?.at ?? (spare ? spare.expires_at - SPARE_GRACE_MS : Date.now()),
      ...(slot ? { slot: call } : {}),
      ...(spare ? { spare: spare.lease } : {}),
    };
  }

  /**
   * Withdraws the lease keyed `call` whose answer never reached its isolate (its call failed past
   * its retries after an attempt ran): its places, its stream's slot and its spare.
   */
  withdraw(call: string): void {
    if (!this.#schema.stored) return;
    this.#sql.exec("DELETE FROM admissions WHERE call = ?", call);
    this.#sql.exec("DELETE FROM streams WHERE lease IN (?, ?)", call, spareOf(call));
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
      const room = this.#windowRoom(perMinute, now, "auth_attempts");
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
   * Room in `table`'s minute window (rows stamped `at`, each holding `n` places; older rows are
   * dropped first) for `perMinute`: the places free, or the refusal with when one frees.
   */
  #windowRoom(
    perMinute: number,
    now: number,
    table: "admissions" | "auth_attempts" = "admissions",
  ): { ok: true; free: number } | { ok: false; retryAfterSeconds: number } {
    this.#schema.ensure();
    this.#sql.exec(`DELETE FROM ${table} WHERE at <= ?`, now - WINDOW_MS);
    // Reservations of earlier versions held their message's place (admitted_at).
    const query =
      table === "admissions"
        ? `SELECT at, n FROM admissions UNION ALL
           SELECT admitted_at AS at, 1 AS n FROM reservations WHERE admitted_at > ?`
        : "SELECT at, 1 AS n FROM auth_attempts WHERE at > ?";
    // Every row of the window (more than the limit's, after the limit was lowered, each counts).
    const rows = this.#sql
      .exec<{ at: number; n: number }>(`${query} ORDER BY at`, now - WINDOW_MS)
      .toArray();
    let held = rows.reduce((sum, row) => sum + row.n, 0);
    if (held < perMinute) return { ok: true, free: perMinute - held };
    let frees = now;
    for (const row of rows) {
      held -= row.n;
      frees = row.at + WINDOW_MS;
      if (held < perMinute) break;
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)) };
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
