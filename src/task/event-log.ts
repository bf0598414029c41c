/**
 * The task's append-only event log: every StreamResponse the task emitted, numbered from 1.
 * The sequence number is the SSE `id`; a reconnect replays from it. Writes are synchronous
 * SQLite statements, so appending and reading a backlog can never interleave; events appended in
 * one {@link EventLog.batch} are written in one statement at its end.
 */
import type { SequencedEvent, StreamEvent } from "../protocol/wire.ts";

type Listener = (event: SequencedEvent) => void;

/** An event with its kind and time (ms since the epoch). */
export type TimelineEntry = { seq: number; kind: string; at: number; event: StreamEvent };

/** Kind of a stream event, for the log's `kind` column. */
export function eventKind(event: StreamEvent): string {
  if ("task" in event) return "task";
  if ("message" in event) return "message";
  if ("statusUpdate" in event) return "status";
  return "artifact";
}

/** Append-only, sequence-numbered log of a task's stream events. */
export class EventLog {
  readonly #sql: SqlStorage;
  readonly #listeners = new Set<Listener>();
  #last: number;
  /** Rows appended in the running {@link batch}, not written yet. */
  #batch: SqlStorageValue[][] | null = null;

  /** `fresh`: the database is new, so the log is empty. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    this.#last = fresh ? 0 : this.#readLast();
  }

  /** Reads the newest number again (after a rollback). */
  forget(): void {
    this.#last = this.#readLast();
  }

  #readLast(): number {
    return (
      this.#sql.exec<{ last: number | null }>("SELECT MAX(seq) AS last FROM events").one().last ?? 0
    );
  }

  /** Sequence number of the newest event (0 when empty). */
  get lastSeq(): number {
    return this.#last;
  }

  /**
   * Runs `fn` (synchronous), writing the events it appends in one statement when it returns; if
   * it throws they are not written (the caller's transaction rolls back, and {@link forget} reads
   * the newest number again). Listeners still hear each event as it is appended.
   */
  batch<T>(fn: () => T): T {
    if (this.#batch) return fn();
    const rows: SqlStorageValue[][] = [];
    this.#batch = rows;
    try {
      const result = fn();
      this.#write(rows);
      return result;
    } finally {
      this.#batch = null;
    }
  }

  /** Appends an event, notifies listeners synchronously, returns it with its number. */
  append(event: StreamEvent, now = Date.now()): SequencedEvent {
    const seq = this.#last + 1;
    const row = [seq, eventKind(event), JSON.stringify(event), now];
    if (this.#batch) this.#batch.push(row);
    else this.#write([row]);
    this.#last = seq;
    const entry = { seq, event };
    for (const listener of this.#listeners) listener(entry);
    return entry;
  }

  /** Writes rows, 25 to a statement (SQLite's 100 bound parameters). */
  #write(rows: SqlStorageValue[][]): void {
    for (let i = 0; i < rows.length; i += 25) {
      const chunk = rows.slice(i, i + 25);
      this.#sql.exec(
        `INSERT INTO events (seq, kind, body, at) VALUES ${chunk.map(() => "(?, ?, ?, ?)").join(", ")}`,
        ...chunk.flat(),
      );
    }
  }

  /** Events with a sequence number greater than `seq`, oldest first. */
  after(seq: number): SequencedEvent[] {
    return this.#sql
      .exec<{ seq: number; body: string }>(
        "SELECT seq, body FROM events WHERE seq > ? ORDER BY seq",
        seq,
      )
      .toArray()
      .map((row) => ({ seq: row.seq, event: JSON.parse(row.body) as StreamEvent }));
  }

  /** Every event with its kind and time (ms since the epoch), oldest first: the task's timeline. */
  timeline(): TimelineEntry[] {
    return this.#sql
      .exec<{ seq: number; kind: string; at: number; body: string }>(
        "SELECT seq, kind, at, body FROM events ORDER BY seq",
      )
      .toArray()
      .map((row) => ({
        seq: row.seq,
        kind: row.kind,
        at: row.at,
        event: JSON.parse(row.body) as StreamEvent,
      }));
  }

  /** Registers a listener for appended events; returns the function that removes it. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
