/**
 * The agent loop's durable counters for one task (a single row): turn number, retry attempt
 * and the turn's faults by kind, whether the answer has started and usage; and the answer text streamed so far (committed turns
 * and the current turn), which lives in rows of its own (answer-text.ts): a streamed delta
 * appends its own text ({@link LoopStateStore.appendTurnText}), a committed turn moves the row's
 * `answer_upto` past its rows, and nothing rewrites the text on every delta or step. Why the task stopped is in its status
 * metadata (`stopReason`), not here; the row's old `stop_reason` column is left unwritten, and
 * its `answer_text` and `turn_text` are read (a task of an older version) but no longer written.
 * Counters live here, not in memory, so a restarted object resumes exactly where it stopped.
 * The shapes are the loop's (loop/loop-state.ts); this file stores them in the task's SQLite.
 */
import { INITIAL_LOOP_STATE, type LoopState } from "../../loop/loop-state.ts";
import { EMPTY_USAGE, type Usage } from "../../model/usage.ts";
import { storedJson } from "../../platform/stored-json.ts";
import { upsertRow } from "../../store/row-copy.ts";
import { AnswerText } from "./answer-text.ts";

interface LoopRow {
  turn: number;
  attempt: number;
  answer_text: string;
  turn_text: string;
  answer_started: number;
  usage_json: string;
  faults_json: string;
  answer_upto: number;
  [key: string]: SqlStorageValue;
}

/** Reads and patches the loop row (kept in memory: the object is its only writer). */
export class LoopStateStore {
  readonly #sql: SqlStorage;
  readonly #text: AnswerText;
  #state: LoopState = INITIAL_LOOP_STATE;
  /** The answer rows up to this number are the committed turns' (answer-text.ts). */
  #upto = 0;
  /** The row still holds text an older version wrote there (moved to rows at the next write). */
  #textInRow = false;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    this.#text = new AnswerText(sql);
    if (!fresh) this.forget();
  }

  /** Reads the row again (after a rollback); no row yet: the initial state. */
  forget(): void {
    const row = this.#sql.exec<LoopRow>("SELECT * FROM loop WHERE id = 1").toArray()[0];
    if (!row) {
      this.#state = INITIAL_LOOP_STATE;
      this.#textInRow = false;
      this.#upto = 0;
      return;
    }
    this.#upto = row.answer_upto;
    const text = this.#text.read(this.#upto);
    this.#textInRow = row.answer_text !== "" || row.turn_text !== "";
    this.#state = {
      turn: row.turn,
      attempt: row.attempt,
      faults: storedJson<LoopState["faults"]>(row.faults_json),
      answerText: row.answer_text + text.answer,
      turnText: row.turn_text + text.turn,
      answerStarted: row.answer_started === 1,
      usage: { ...EMPTY_USAGE, ...storedJson<Partial<Usage>>(row.usage_json) },
    };
  }

  /** The current state (a copy). */
  get(): LoopState {
    return { ...this.#state, faults: { ...this.#state.faults }, usage: { ...this.#state.usage } };
  }

  /** Writes the given fields (the text as its rows need: nothing when it did not change). */
  patch(changes: Partial<LoopState>): LoopState {
    const next = { ...this.#state, ...changes };
    this.#writeText(this.#state, next);
    upsertRow(this.#sql, "loop", ["id"], {
      id: 1,
      turn: next.turn,
      attempt: next.attempt,
      faults_json: JSON.stringify(next.faults),
      answer_started: next.answerStarted ? 1 : 0,
      usage_json: JSON.stringify(next.usage),
      answer_upto: this.#upto,
    });
    this.#state = next;
    return this.get();
  }

  /** Appends a streamed delta to the current turn's text: writes that delta, nothing more. */
  appendTurnText(text: string): void {
    if (text === "") return;
    this.#moveRowText();
    this.#text.appendTurn(text);
    this.#state = { ...this.#state, turnText: this.#state.turnText + text };
  }

  /** The rows for a change of the text: a committed turn, a dropped one, or else all of it. */
  #writeText(prev: LoopState, next: LoopState): void {
    if (next.answerText === prev.answerText && next.turnText === prev.turnText) return;
    this.#moveRowText();
    this.#upto =
      next.turnText === "" && next.answerText === prev.answerText + prev.turnText
        ? this.#text.commitTurn()
        : this.#text.rewrite({ answer: next.answerText, turn: next.turnText });
  }

  /** Moves text an older version kept in the loop row into the rows. */
  #moveRowText(): void {
    if (!this.#textInRow) return;
    this.#upto = this.#text.rewrite({ answer: this.#state.answerText, turn: this.#state.turnText });
    this.#sql.exec(
      "UPDATE loop SET answer_text = '', turn_text = '', answer_upto = 0 WHERE id = 1",
    );
    this.#textInRow = false;
  }
}
