/**
 * A Durable Object has one alarm; this schedule table lets every kind of deferred work share it
 * (the agent loop's next step, index retries, and later push retries and retention). Each entry
 * has an id (one pending entry per id), a kind, a due time and an attempt counter. After any
 * change the alarm is set to the earliest due entry.
 */

/** One scheduled piece of work. */
export interface ScheduleEntry {
  id: string;
  kind: string;
  dueAt: number;
  attempts: number;
  payload: unknown;
}

interface ScheduleRow {
  id: string;
  kind: string;
  due_at: number;
  attempts: number;
  payload_json: string | null;
  [key: string]: SqlStorageValue;
}

const toEntry = (row: ScheduleRow): ScheduleEntry => ({
  id: row.id,
  kind: row.kind,
  dueAt: row.due_at,
  attempts: row.attempts,
  payload: row.payload_json === null ? null : JSON.parse(row.payload_json),
});

/** The schedule table plus the alarm that serves it. */
export class Scheduler {
  readonly #sql: SqlStorage;
  readonly #storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.#sql = storage.sql;
  }

  /** Adds or replaces the entry `id`; keeps its attempt count unless `attempts` is given. */
  async schedule(
    id: string,
    kind: string,
    dueAt: number,
    options: { attempts?: number; payload?: unknown } = {},
  ): Promise<void> {
    this.#sql.exec(
      `INSERT INTO schedule (id, kind, due_at, attempts, payload_json) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at,
         attempts = COALESCE(?, schedule.attempts), payload_json = excluded.payload_json`,
      id,
      kind,
      dueAt,
      options.attempts ?? 0,
      options.payload === undefined ? null : JSON.stringify(options.payload),
      options.attempts ?? null,
    );
    await this.arm();
  }

  /** Removes the entry `id` if present. */
  async cancel(id: string): Promise<void> {
    this.#sql.exec("DELETE FROM schedule WHERE id = ?", id);
    await this.arm();
  }

  /** The entry `id`, if scheduled. */
  get(id: string): ScheduleEntry | null {
    const row = this.#sql.exec<ScheduleRow>("SELECT * FROM schedule WHERE id = ?", id).toArray()[0];
    return row ? toEntry(row) : null;
  }

  /** Entries due at `now`, earliest first. They stay scheduled until their handler reschedules or cancels them. */
  due(now: number): ScheduleEntry[] {
    return this.#sql
      .exec<ScheduleRow>("SELECT * FROM schedule WHERE due_at <= ? ORDER BY due_at, id", now)
      .toArray()
      .map(toEntry);
  }

  /** Points the alarm at the earliest entry, or clears it when nothing is scheduled. */
  async arm(): Promise<void> {
    const row = this.#sql
      .exec<{ next: number | null }>("SELECT MIN(due_at) AS next FROM schedule")
      .one();
    if (row.next === null) {
      await this.#storage.deleteAlarm();
      return;
    }
    // Always set: during alarm() the firing alarm may still read as current, and skipping the
    // call would let the runtime clear it when the handler returns.
    await this.#storage.setAlarm(row.next);
  }
}
