/**
 * A Durable Object has one alarm; this schedule table lets every kind of deferred work share it
 * (the agent loop's next step, index retries, and later push retries and retention). Each entry
 * has an id (one pending entry per id), a kind, a due time and an attempt counter. After any
 * change the alarm is set to the earliest due entry.
 */
import { backoffMs } from "../model/errors.ts";
import { copyOfMap, type RowCopy, type RowOf, withJson } from "./row-copy.ts";

/** One scheduled piece of work. */
export interface ScheduleEntry {
  id: string;
  kind: string;
  dueAt: number;
  attempts: number;
  payload: unknown;
}

/** An entry's columns, as its fields (the payload as JSON text). */
const ENTRY_FIELDS = "id, kind, due_at AS dueAt, attempts, payload_json AS payload";

/**
 * The schedule table plus the alarm that serves it. The object is the table's only writer, so
 * the rows are read once and mirrored in memory: lookups and the alarm's next time cost no query.
 */
export class Scheduler {
  readonly #sql: SqlStorage;
  readonly #storage: DurableObjectStorage;
  readonly #rows: RowCopy<Map<string, ScheduleEntry>>;

  /** `fresh`: the database is new, so nothing is scheduled. */
  constructor(storage: DurableObjectStorage, fresh = false) {
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#rows = copyOfMap(
      this.#sql,
      `SELECT ${ENTRY_FIELDS} FROM schedule`,
      (row: RowOf<{ id: string }>) => [row.id, withJson<ScheduleEntry>(row, ["payload"])],
      fresh,
    );
  }

  /** Drops the copy (after a rollback): the next read takes it from SQLite. */
  forget(): void {
    this.#rows.forget();
  }

  #entries(): Map<string, ScheduleEntry> {
    return this.#rows.value;
  }

  /** Adds or replaces the entry `id`; keeps its attempt count unless `attempts` is given. */
  async schedule(
    id: string,
    kind: string,
    dueAt: number,
    options: { attempts?: number; payload?: unknown } = {},
  ): Promise<void> {
    this.put(id, kind, dueAt, options);
    await this.arm();
  }

  /**
   * {@link schedule} without moving the alarm: for writes batched into one transaction, which
   * then call {@link arm} once.
   */
  put(
    id: string,
    kind: string,
    dueAt: number,
    options: { attempts?: number; payload?: unknown } = {},
  ): void {
    const entries = this.#entries();
    const payload = options.payload === undefined ? null : options.payload;
    this.#sql.exec(
      `INSERT INTO schedule (id, kind, due_at, attempts, payload_json) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at,
         attempts = COALESCE(?, schedule.attempts), payload_json = excluded.payload_json`,
      id,
      kind,
      dueAt,
      options.attempts ?? 0,
      payload === null ? null : JSON.stringify(payload),
      options.attempts ?? null,
    );
    const attempts = options.attempts ?? entries.get(id)?.attempts ?? 0;
    entries.set(id, { id, kind, dueAt, attempts, payload });
  }

  /**
   * Schedules another try of the entry `id` after a failure: one more attempt, with backoff
   * (doubling from 200 ms, capped at the eighth attempt); its payload stays. Returns the attempt
   * count.
   */
  async retry(id: string, kind: string): Promise<number> {
    const entry = this.get(id);
    const attempts = (entry?.attempts ?? 0) + 1;
    await this.schedule(id, kind, Date.now() + backoffMs(Math.min(attempts, 8), 200), {
      attempts,
      payload: entry?.payload ?? undefined,
    });
    return attempts;
  }

  /** Removes the entry `id` if it is scheduled (and only then touches the alarm). */
  async done(id: string): Promise<void> {
    if (this.get(id)) await this.cancel(id);
  }

  /** Removes the entry `id` if present. */
  async cancel(id: string): Promise<void> {
    const entries = this.#entries();
    if (entries.delete(id)) this.#sql.exec("DELETE FROM schedule WHERE id = ?", id);
    await this.arm();
  }

  /** The entry `id`, if scheduled. */
  get(id: string): ScheduleEntry | null {
    return this.#entries().get(id) ?? null;
  }

  /** Entries due at `now`, earliest first. They stay scheduled until their handler reschedules or cancels them. */
  due(now: number): ScheduleEntry[] {
    return [...this.#entries().values()]
      .filter((entry) => entry.dueAt <= now)
      .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Points the alarm at the earliest entry, or clears it when nothing is scheduled. */
  async arm(): Promise<void> {
    let next: number | null = null;
    for (const entry of this.#entries().values())
      if (next === null || entry.dueAt < next) next = entry.dueAt;
    if (next === null) {
      await this.#storage.deleteAlarm();
      return;
    }
    // Always set: during alarm() the firing alarm may still read as current, and skipping the
    // call would let the runtime clear it when the handler returns.
    await this.#storage.setAlarm(next);
  }
}
