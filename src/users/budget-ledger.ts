/**
 * A principal's token budgets in its user object's SQLite (`reservations`, `spent`): tokens
 * reserved before a model call and settled with the real usage after it, so concurrent tasks can
 * never overspend. A reservation is keyed by its call's idempotency key: reserved again, it
 * replaces itself; settled, it is kept marked until a retry can no longer come. Days and months
 * are UTC. Synchronous SQL only.
 */

/** Why a reservation was refused. */
export interface BudgetRefusal {
  ok: false;
  scope: "day" | "month";
  used: number;
  limit: number;
}

/** The day and month budgets a reservation must fit (0 = unlimited). */
export interface BudgetLimits {
  dayLimit: number;
  monthLimit: number;
}

/** A reservation the task never settled (it died) stops counting after this long. */
const RESERVATION_MS = 15 * 60_000;
/** A settlement's mark is kept this long: longer than any retry of it comes (platform/retry.ts). */
const SETTLED_KEPT_MS = 10 * 60_000;

export const dayOf = (now: number) => new Date(now).toISOString().slice(0, 10);
export const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7);

/** A reservation's row as written. */
interface Kept {
  tokens: number;
  until: number;
  settled: 0 | 1;
}

/** The budgets of one user object. */
export class BudgetLedger {
  readonly #sql: SqlStorage;
  readonly #stored: () => boolean;

  /** `stored`: whether the object holds its tables (else nothing was spent). */
  constructor(sql: SqlStorage, stored: () => boolean) {
    this.#sql = sql;
    this.#stored = stored;
  }

  /** Tokens spent and reserved in the day and month of `now` (expired reservations dropped). */
  spent(now: number): { day: number; month: number } {
    if (!this.#stored()) return { day: 0, month: 0 };
    this.#sql.exec("DELETE FROM reservations WHERE expires_at <= ?", now);
    const day = dayOf(now);
    const month = monthOf(now);
    // A month's spend is the sum of its days' (`d:<day>` rows, never deleted; `m:<month>` rows,
    // which objects stored before also hold, are the same sum and no longer written).
    const spent = (from: string, to: string) =>
      this.#sql
        .exec<{ n: number | null }>(
          "SELECT SUM(tokens) AS n FROM spent WHERE period >= ? AND period <= ?",
          from,
          to,
        )
        .one().n ?? 0;
    const reserved = (column: "day" | "month", period: string) =>
      this.#sql
        .exec<{ n: number | null }>(
          `SELECT SUM(tokens) AS n FROM reservations WHERE ${column} = ?`,
          period,
        )
        .one().n ?? 0;
    return {
      day: spent(`d:${day}`, `d:${day}`) + reserved("day", day),
      month: spent(`d:${month}-01`, `d:${month}-31`) + reserved("month", month),
    };
  }

  /** Reserves `tokens` under `key` (replacing what the key held) if the budgets hold them. */
  reserve(
    key: string,
    tokens: number,
    limits: BudgetLimits,
    now: number,
  ): { ok: true } | BudgetRefusal {
    this.#sql.exec("DELETE FROM reservations WHERE key = ?", key);
    const refused = this.#refusal(tokens, limits, now);
    if (refused) return refused;
    this.#keep(key, now, { tokens, until: now + RESERVATION_MS, settled: 0 });
    return { ok: true };
  }

  /**
   * Replaces the reservation `key` with what was really spent (0 releases it), or counts `tokens`
   * no reservation was made for (no day or month budget applied, or it expired). The reservation's
   * row is kept, marked settled, until a retry can no longer come ({@link SETTLED_KEPT_MS}): a
   * retried settlement finds the mark and counts nothing more. Call inside a transaction.
   */
  settle(key: string, tokens: number, now: number): void {
    const row = this.#sql
      .exec<{ settled: number }>("SELECT settled FROM reservations WHERE key = ?", key)
      .toArray()[0];
    if (row?.settled) return;
    const kept = now + SETTLED_KEPT_MS;
    if (row)
      this.#sql.exec(
        "UPDATE reservations SET tokens = 0, settled = 1, expires_at = ? WHERE key = ?",
        kept,
        key,
      );
    else this.#keep(key, now, { tokens: 0, until: kept, settled: 1 });
    if (tokens <= 0) return;
    this.#sql.exec(
      `INSERT INTO spent (period, tokens) VALUES (?, ?)
       ON CONFLICT (period) DO UPDATE SET tokens = tokens + excluded.tokens`,
      `d:${dayOf(now)}`,
      tokens,
    );
  }

  /** The refusal when the day or month budget (0 = unlimited) cannot hold `tokens` more. */
  #refusal(tokens: number, limits: BudgetLimits, now: number): BudgetRefusal | null {
    const used = this.spent(now);
    const { dayLimit, monthLimit } = limits;
    if (dayLimit > 0 && used.day + tokens > dayLimit)
      return { ok: false, scope: "day", used: used.day, limit: dayLimit };
    if (monthLimit > 0 && used.month + tokens > monthLimit)
      return { ok: false, scope: "month", used: used.month, limit: monthLimit };
    return null;
  }

  /** Writes the reservation `key`, made at `now`. */
  #keep(key: string, now: number, row: Kept): void {
    this.#sql.exec(
      `INSERT INTO reservations (key, tokens, day, month, expires_at, settled)
       VALUES (?, ?, ?, ?, ?, ?)`,
      key,
      row.tokens,
      dayOf(now),
      monthOf(now),
      row.until,
      row.settled,
    );
  }
}
