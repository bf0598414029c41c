/**
 * The task's append-only event log: every StreamResponse the task emitted, numbered from 1.
 * The sequence number is the SSE `id`; a reconnect replays from it. Every append belongs to a
 * unit of work (write-unit.ts, its own when none runs): the unit's events are written as one row
 * at its end (`seq` its first event's number, `last` its last's, the body their JSON array; a
 * unit of one event, and every row an older version wrote, holds that event alone, `last` null),
 * and listeners (the task's live streams) hear them only once it commits, so no stream ever sees
 * an event that was rolled back. A unit's row costs one row written however many events it holds
 * (a status change and its events, a turn's end). A body long enough to grow with the answer (a
 * replacing answer chunk, the answer's echo, a task snapshot) is stored in pieces
 * (long-values.ts), so that no stored value nears SQLite's limit.
 */
import { storedJson } from "../../platform/stored-json.ts";
import type { SequencedEvent, StreamEvent } from "../../protocol/wire.ts";
import { LongValues } from "../../store/long-values.ts";
import type { UnitMember, WriteUnit } from "./write-unit.ts";

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

/** The key of a row's long body (long-values.ts), by its first event's number. */
const eventKey = (seq: number) => `events:${seq}`;

/** The `kind` of a row that holds a unit's events (each event's kind is read from it). */
const BATCH_KIND = "unit";

/** A row of the log: one event (`last` null) or a unit's, `seq` to `last`. */
type Row = { seq: number; last: number | null; kind: string; at: number; body: string };

/** Append-only, sequence-numbered log of a task's stream events. */
export class EventLog implements UnitMember {
  readonly #sql: SqlStorage;
  readonly #unit: WriteUnit;
  readonly #long: LongValues;
  readonly #listeners = new Set<Listener>();
  #last: number;
  /** Rows appended in the running unit, not written yet. */
  #rows: Array<[seq: number, kind: string, body: string, at: number]> = [];
  /** Events appended in the running unit, not heard yet. */
  #unheard: SequencedEvent[] = [];

  /** `fresh`: the database is new, so the log is empty. */
  constructor(sql: SqlStorage, unit: WriteUnit, fresh = false) {
    this.#sql = sql;
    this.#unit = unit;
    this.#long = new LongValues(sql);
    unit.join(this);
    this.#last = fresh ? 0 : this.#readLast();
  }

  /** After a rollback: drops what the unit appended and reads the newest number again. */
  forget(): void {
    this.#rows = [];
    this.#unheard = [];
    this.#last = this.#readLast();
  }

  /** Writes the unit's events as one row (one event: that event's row), a long body's pieces first. */
  flush(): void {
    const rows = this.#rows;
    this.#rows = [];
    const first = rows[0];
    const last = rows.at(-1);
    if (!first || !last) return;
    const [seq, kind, body, at] =
      rows.length === 1
        ? first
        : [first[0], BATCH_KIND, `[${rows.map((row) => row[2]).join(",")}]`, first[3]];
    this.#sql.exec(
      "INSERT INTO events (seq, kind, body, at, last) VALUES (?, ?, ?, ?, ?)",
      seq,
      kind,
      this.#long.put(eventKey(seq), body),
      at,
      rows.length === 1 ? null : last[0],
    );
  }

  /** The unit committed: listeners hear its events, in order. */
  committed(): void {
    const heard = this.#unheard;
    this.#unheard = [];
    for (const entry of heard) for (const listener of this.#listeners) listener(entry);
  }

  #readLast(): number {
    const newest = this.#sql
      .exec<{ last: number }>(
        "SELECT IFNULL(last, seq) AS last FROM events ORDER BY seq DESC LIMIT 1",
      )
      .toArray()[0];
    return newest?.last ?? 0;
  }

  /** Sequence number of the newest event (0 when empty). */
  get lastSeq(): number {
    return this.#last;
  }

  /**
   * Appends an event in the running unit (its own when none runs); returns it with its number.
   * Listeners hear it when the unit commits.
   */
  append(event: StreamEvent, now = Date.now()): SequencedEvent {
    return this.#unit.run(() => {
      const seq = this.#last + 1;
      this.#rows.push([seq, eventKind(event), JSON.stringify(event), now]);
      this.#last = seq;
      const entry = { seq, event };
      this.#unheard.push(entry);
      return entry;
    });
  }

  /** Events with a sequence number greater than `seq`, oldest first. */
  after(seq: number): SequencedEvent[] {
    // The row that holds `seq` may hold later events too: read from it on.
    const rows = this.#sql.exec<Row>(
      `SELECT seq, last, kind, at, body FROM events
         WHERE seq >= IFNULL((SELECT MAX(seq) FROM events WHERE seq <= ?), 0) ORDER BY seq`,
      seq,
    );
    return this.#entries(rows)
      .filter((entry) => entry.seq > seq)
      .map((entry) => ({ seq: entry.seq, event: entry.event }));
  }

  /** Every event with its kind and time (ms since the epoch), oldest first: the task's timeline. */
  timeline(): TimelineEntry[] {
    return this.#entries(
      this.#sql.exec<Row>("SELECT seq, last, kind, at, body FROM events ORDER BY seq"),
    );
  }

  /** The events rows hold, in order: a unit's row gives each of its events. */
  #entries(rows: Iterable<Row>): TimelineEntry[] {
    const entries: TimelineEntry[] = [];
    for (const row of rows) {
      const stored = this.#long.get(eventKey(row.seq), row.body);
      if (row.last === null) {
        entries.push({
          seq: row.seq,
          kind: row.kind,
          at: row.at,
          event: storedJson<StreamEvent>(stored),
        });
        continue;
      }
      storedJson<StreamEvent[]>(stored).forEach((event, i) => {
        entries.push({ seq: row.seq + i, kind: eventKind(event), at: row.at, event });
      });
    }
    return entries;
  }

  /** How many listeners are registered (the task's streams, and long polls waiting). */
  get listeners(): number {
    return this.#listeners.size;
  }

  /** Registers a listener for committed events; returns the function that removes it. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
