/**
 * Values too long for one row of the task object's SQLite, kept in pieces. A JSON column whose
 * text could grow with the answer (an artifact, a history message, the status, an event) stores
 * its text as is when it is short, and "" when it is long (JSON text is never empty), its text
 * then in rows of `long_values` under the row's key, in order, each of at most
 * {@link PIECE_CHARS} characters. So no stored value grows with an answer: Cloudflare refuses a
 * value or row over 2 MB, and a piece is at most 192 KB of UTF-8. Synchronous SQL only; the
 * caller groups calls in its transaction.
 */
import { textPieces } from "../../store/text-pieces.ts";

/** The most characters one stored value (a short one, or a piece of a long one) holds. */
export const PIECE_CHARS = 64 * 1024;

/** The pieces of the task's long values. */
export class LongValues {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /**
   * What the row keyed `key` stores for `text`: `text` when short, else "" (its pieces written
   * here). `replacing`: the row may have held a long value before, whose pieces go.
   */
  put(key: string, text: string, replacing = false): string {
    if (replacing) this.#sql.exec("DELETE FROM long_values WHERE key = ?", key);
    if (text.length <= PIECE_CHARS) return text;
    textPieces(text, PIECE_CHARS).forEach((piece, seq) => {
      this.#sql.exec("INSERT INTO long_values (key, seq, text) VALUES (?, ?, ?)", key, seq, piece);
    });
    return "";
  }

  /** The text the row keyed `key` holds, as it stored it (`stored`): itself, or its pieces. */
  get(key: string, stored: string): string {
    if (stored !== "") return stored;
    return this.#sql
      .exec<{ text: string }>("SELECT text FROM long_values WHERE key = ? ORDER BY seq", key)
      .toArray()
      .map((row) => row.text)
      .join("");
  }
}
