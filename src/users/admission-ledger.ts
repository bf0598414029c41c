/**
 * A principal's admissions in its user object's SQLite (`admissions`, `streams`): the minute's
 * message window, leased to the isolates that admit requests in slices (admission-lease.ts: one
 * row per lease, holding its places `n`, dated the lease's end), and the stream slots held open
 * (a stream's own until it ends; an isolate's spare until its lease ends and
 * {@link SPARE_GRACE_MS} more). Synchronous SQL only: each call is one step of the object.
 */

/**
 * What {@link AdmissionLedger.lease} answers: admitted, with the places of the minute's window the
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

/** What a request asks of {@link AdmissionLedger.lease} (users/admission-lease.ts). */
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

/** The sliding window of messages (and of credential attempts: user-object.ts). */
export const WINDOW_MS = 60_000;

/**
 * How long past its lease a spare stream slot's row is kept: a stream given it near the lease's
 * end makes it its own (takeSpare) with retries that take less than this.
 */
export const SPARE_GRACE_MS = 30_000;

/** The key of the spare stream slot a lease keyed `call` made. */
const spareOf = (call: string) => `${call}:spare`;

/**
 * Room in `table`'s minute window (rows stamped `at`, each holding `n` places; older rows are
 * dropped first) for `perMinute`: the places free, or the refusal with when one frees. The
 * `auth_attempts` window is the credential throttle's (user-object.ts).
 */
export function windowRoom(
  sql: SqlStorage,
  table: "admissions" | "auth_attempts",
  perMinute: number,
  now: number,
): { ok: true; free: number } | { ok: false; retryAfterSeconds: number } {
  sql.exec(`DELETE FROM ${table} WHERE at <= ?`, now - WINDOW_MS);
  const places = table === "admissions" ? "n" : "1";
  // Every row of the window (more than the limit's, after the limit was lowered, each counts).
  const rows = sql
    .exec<{ at: number; n: number }>(`SELECT at, ${places} AS n FROM ${table} ORDER BY at`)
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

/** The admissions of one user object. */
export class AdmissionLedger {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
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
  lease(call: string, ask: LeaseAsk, now: number): Lease {
    const leased = this.#leased(call, ask.stream !== undefined);
    if (leased) return leased;
    for (const use of ask.ended ?? []) this.#correct(use);
    const room = ask.perMinute > 0 ? windowRoom(this.#sql, "admissions", ask.perMinute, now) : null;
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
   * A spare slot an isolate gave a stream (`slot`): held `leaseMs` from now, as the stream's own
   * (`held`; false if its row was gone and no slot is free under `spare.max`: the stream is not
   * counted); with `spare` (and two slots free under `spare.max`), a new spare under the key
   * `call`, usable until `spare.ttlMs` from now. Answers the new spare's key, or null.
   */
  takeSpare(
    slot: string,
    leaseMs: number,
    call: string,
    spare: { max: number; ttlMs: number } | undefined,
    now: number,
  ): { held: boolean; spare: string | null } {
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
    this.#sql.exec("DELETE FROM admissions WHERE call = ?", call);
    this.#sql.exec("DELETE FROM streams WHERE lease IN (?, ?)", call, spareOf(call));
  }

  closeStream(lease: string): void {
    this.#sql.exec("DELETE FROM streams WHERE lease = ?", lease);
  }
}
