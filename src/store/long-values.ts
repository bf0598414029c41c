/**
 * Values too long for one row of a Durable Object's SQLite, kept in pieces. A JSON column whose
 * text could grow with the answer (the task object's artifacts, history, status, events,
 * conversation rows, child reports, pending calls and push bodies; the context object's turns)
 * stores its text as is when it is short, and "" when it is long (JSON text is never empty), its
 * text then in rows of `long_values` ({@link LONG_VALUES_TABLE}) under the row's key, in order,
 * each of at most {@link PIECE_CHARS} characters. So no stored value grows with an answer:
 * Cloudflare refuses a value or row over 2 MB, and a piece is at most 192 KB of UTF-8.
 * Synchronous SQL only; the caller groups calls in its transaction.
 */
import { textPieces } from "./text-pieces.ts";

/** The most characters one stored value (a short one, or a piece of a long one) holds. */
export const PIECE_CHARS = 64 * 1024;

/** The table of pieces, for an object's migrations. */
export const LONG_VALUES_TABLE =
  "CREATE TABLE long_values (key TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (key, seq))";

/** Whether `text` is stored in pieces (its column then holds ""). */
export const isLong = (text: string): boolean => text.length > PIECE_CHARS;

/** The pieces of an object's long values. */
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
    if (!isLong(text)) return text;
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

  /**
   * Drops the pieces of the keys `keysQuery` selects (run with `bindings`): call it before
   * deleting rows that may hold long values, selecting their keys.
   */
  drop(keysQuery: string, ...bindings: SqlStorageValue[]): void {
    this.#sql.exec(`DELETE FROM long_values WHERE key IN (${keysQuery})`, ...bindings);
  }
}
