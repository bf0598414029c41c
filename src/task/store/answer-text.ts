/**
 * The answer text a task has streamed, kept in rows (`answer_chunks`): the committed turns' text
 * and the current turn's, each as the chunks it streamed in, in order. Streaming a delta appends
 * one row of its own text, and committing a turn writes no chunk: the rows up to a number are the
 * committed ones (`upto`, which the loop row keeps and writes with the turn's end anyway), besides
 * rows written committed (`committed` = 1: a rewritten answer). So the work of an answer is linear
 * in its length (the loop row, rewritten whole on every delta, made it quadratic), and no stored
 * value grows with the answer: a row holds at most {@link CHUNK_CHARS} characters, far below
 * SQLite's 2 MB value limit. Synchronous SQL only; the caller groups calls in transactions.
 */

import { textPieces } from "../../store/text-pieces.ts";

/** The most characters one row holds. */
export const CHUNK_CHARS = 64 * 1024;

/** The two parts of the answer: the committed turns' text, and the current turn's. */
export interface AnswerParts {
  answer: string;
  turn: string;
}

/** The answer rows of one task. */
export class AnswerText {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Both parts, as stored (empty before the first row); rows numbered up to `upto` are committed. */
  read(upto: number): AnswerParts {
    const answer: string[] = [];
    const turn: string[] = [];
    const rows = this.#sql.exec<{ seq: number; committed: number; text: string }>(
      "SELECT seq, committed, text FROM answer_chunks ORDER BY seq",
    );
    for (const row of rows) (row.committed === 1 || row.seq <= upto ? answer : turn).push(row.text);
    return { answer: answer.join(""), turn: turn.join("") };
  }

  /** Appends `text` to the current turn. */
  appendTurn(text: string): void {
    this.#insert(0, text);
  }

  /**
   * Makes the current turn's text part of the answer, writing nothing: the number every row up
   * to which is committed, for the caller to keep (0 when there is no row).
   */
  commitTurn(): number {
    return (
      this.#sql.exec<{ upto: number | null }>("SELECT MAX(seq) AS upto FROM answer_chunks").one()
        .upto ?? 0
    );
  }

  /** Replaces both parts, each row marked as it is: the committed number is 0 again. */
  rewrite(parts: AnswerParts): 0 {
    this.#sql.exec("DELETE FROM answer_chunks");
    this.#insert(1, parts.answer);
    this.#insert(0, parts.turn);
    return 0;
  }

  #insert(committed: 0 | 1, text: string): void {
    for (const piece of textPieces(text, CHUNK_CHARS))
      this.#sql.exec("INSERT INTO answer_chunks (committed, text) VALUES (?, ?)", committed, piece);
  }
}
