/**
 * The task's append-only event log: every StreamResponse the task emitted, numbered from 1.
 * The sequence number is the SSE `id`; a reconnect replays from it. Every append belongs to a
 * unit of work (write-unit.ts, its own when none runs): the unit's events are written in one
 * statement at its end, and listeners (the task's live streams) hear them only once it commits,
 * so no stream ever sees an event that was rolled back. An event long enough to grow with the
 * answer (a replacing answer chunk, the answer's echo, a task snapshot) is stored in pieces
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

/** The key of an event's long body (long-values.ts). */
const eventKey = (seq: number) => `events:${seq}`;

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

  /**
   * Writes the unit's events, 25 to a statement (SQLite's 100 bound parameters), a long body's
   * pieces first.
   */
  flush(): void {
    const rows = this.#rows.map(([seq, kind, body, at]) => [
      seq,
      kind,
      this.#long.put(eventKey(seq), body),
      at,
    ]);
    this.#rows = [];
    for (let i = 0; i < rows.length; i += 25) {
      const chunk = rows.slice(i, i + 25);
      this.#sql.exec(
        `INSERT INTO events (seq, kind, body, at) VALUES ${chunk.map(() => "(?, ?, ?, ?)").join(", ")}`,
        ...chunk.flat(),
      );
    }
  }

  /** The unit committed: listeners hear its events, in order. */
  committed(): void {
    const heard = this.#unheard;
    this.#unheard = [];
    for (const entry of heard) for (const listener of this.#listeners) listener(entry);
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
    return this.#sql
      .exec<{ seq: number; body: string }>(
        "SELECT seq, body FROM events WHERE seq > ? ORDER BY seq",
        seq,
      )
      .toArray()
      .map((row) => ({ seq: row.seq, event: this.#parse(row.seq, row.body) }));
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
        event: this.#parse(row.seq, row.body),
      }));
  }

  /** The event a row stored (its body, or its pieces). */
  #parse(seq: number, body: string): StreamEvent {
    return storedJson<StreamEvent>(this.#long.get(eventKey(seq), body));
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
