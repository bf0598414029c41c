/**
 * The agent loop's durable counters for one task (a single row): turn number, retry attempt,
 * the answer text streamed so far (committed turns and the current turn) and usage. Why the task
 * stopped is in its status metadata (`stopReason`), not here; the row's old `stop_reason` column
 * is left unwritten.
 * Counters live here, not in memory, so a restarted object resumes exactly where it stopped.
 * The shapes are the loop's (loop/loop-state.ts); this file stores them in the task's SQLite.
 */
import { INITIAL_LOOP_STATE, type LoopState } from "../../loop/loop-state.ts";
import { EMPTY_USAGE, type Usage } from "../../model/usage.ts";
import { upsertRow } from "../../store/row-copy.ts";

interface LoopRow {
  turn: number;
  attempt: number;
  answer_text: string;
  turn_text: string;
  answer_started: number;
  usage_json: string;
  [key: string]: SqlStorageValue;
}

/** Reads and patches the loop row (kept in memory: the object is its only writer). */
export class LoopStateStore {
  readonly #sql: SqlStorage;
  #state: LoopState = INITIAL_LOOP_STATE;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    if (!fresh) this.forget();
  }

  /** Reads the row again (after a rollback); no row yet: the initial state. */
  forget(): void {
    const row = this.#sql.exec<LoopRow>("SELECT * FROM loop WHERE id = 1").toArray()[0];
    if (!row) {
      this.#state = INITIAL_LOOP_STATE;
      return;
    }
    this.#state = {
      turn: row.turn,
      attempt: row.attempt,
      answerText: row.answer_text,
      turnText: row.turn_text,
      answerStarted: row.answer_started === 1,
      usage: { ...EMPTY_USAGE, ...(JSON.parse(row.usage_json) as Partial<Usage>) },
    };
  }

  /** The current state (a copy). */
  get(): LoopState {
    return { ...this.#state, usage: { ...this.#state.usage } };
  }

  /** Writes the given fields. */
  patch(changes: Partial<LoopState>): LoopState {
    const next = { ...this.#state, ...changes };
    upsertRow(this.#sql, "loop", ["id"], {
      id: 1,
      turn: next.turn,
      attempt: next.attempt,
      answer_text: next.answerText,
      turn_text: next.turnText,
      answer_started: next.answerStarted ? 1 : 0,
      usage_json: JSON.stringify(next.usage),
    });
    this.#state = next;
    return this.get();
  }
}
