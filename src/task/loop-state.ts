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

/** Reads and patches the loop row. */
export class LoopStateStore {
  readonly #sql: SqlStorage;
  #state: LoopState;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    sql.exec("INSERT OR IGNORE INTO loop (id) VALUES (1)");
    const row = sql.exec<LoopRow>("SELECT * FROM loop WHERE id = 1").one();
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
      `UPDATE loop SET turn = ?, attempt = ?, answer_text = ?, turn_text = ?, answer_started = ?,
        usage_json = ?, stop_reason = ? WHERE id = 1`,
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
