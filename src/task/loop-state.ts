/**
 * The agent loop's durable counters for one task (a single row): turn number, retry attempt,
 * the answer text streamed so far (committed turns and the current turn), usage and stop reason.
 * Counters live here, not in memory, so a restarted object resumes exactly where it stopped.
 * The shapes are the loop's (loop/loop-state.ts); this file stores them in the task's SQLite.
 */
import { EMPTY_USAGE, type LoopState, type Usage } from "../loop/loop-state.ts";

interface LoopRow {
  turn: number;
  attempt: number;
  answer_text: string;
  turn_text: string;
  answer_started: number;
  usage_json: string;
  stop_reason: string | null;
  [key: string]: SqlStorageValue;
}

const INITIAL: LoopState = {
  turn: 0,
  attempt: 0,
  answerText: "",
  turnText: "",
  answerStarted: false,
  usage: EMPTY_USAGE,
  stopReason: null,
};

/** Reads and patches the loop row (kept in memory: the object is its only writer). */
export class LoopStateStore {
  readonly #sql: SqlStorage;
  #state: LoopState = INITIAL;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    if (!fresh) this.forget();
  }

  /** Reads the row again (after a rollback); no row yet: the initial state. */
  forget(): void {
    const row = this.#sql.exec<LoopRow>("SELECT * FROM loop WHERE id = 1").toArray()[0];
    if (!row) {
      this.#state = INITIAL;
      return;
    }
    this.#state = {
      turn: row.turn,
      attempt: row.attempt,
      answerText: row.answer_text,
      turnText: row.turn_text,
      answerStarted: row.answer_started === 1,
      usage: { ...EMPTY_USAGE, ...(JSON.parse(row.usage_json) as Partial<Usage>) },
      stopReason: row.stop_reason,
    };
  }

  /** The current state (a copy). */
  get(): LoopState {
    return { ...this.#state, usage: { ...this.#state.usage } };
  }

  /** Writes the given fields. */
  patch(changes: Partial<LoopState>): LoopState {
    const next = { ...this.#state, ...changes };
    this.#sql.exec(
      `INSERT INTO loop (id, turn, attempt, answer_text, turn_text, answer_started, usage_json,
        stop_reason) VALUES (1, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET turn = excluded.turn, attempt = excluded.attempt,
        answer_text = excluded.answer_text, turn_text = excluded.turn_text,
        answer_started = excluded.answer_started, usage_json = excluded.usage_json,
        stop_reason = excluded.stop_reason`,
      next.turn,
      next.attempt,
      next.answerText,
      next.turnText,
      next.answerStarted ? 1 : 0,
      JSON.stringify(next.usage),
      next.stopReason,
    );
    this.#state = next;
    return this.get();
  }
}
