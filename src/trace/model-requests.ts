/**
 * The exact requests a task sent to the model, for people to read ("what the model sees"): the
 * body of each of the task's last {@link MODEL_REQUESTS_KEPT} model calls (agent-loop turns and
 * compaction summaries), as the text that went over the wire, in the task object's SQLite
 * (`model_requests`). A body longer than one row may hold is kept in pieces (store/long-values.ts),
 * so a request of any size stays under the 2 MB value limit. Bodies only: the API key and every
 * header stay out (they travel in headers, never in the body). Synchronous SQL only.
 */
import { LongValues } from "../store/long-values.ts";
import { type CallOrigin, originOf } from "./model-calls.ts";

/** How many of a task's latest model requests are kept (older ones are dropped first). */
export const MODEL_REQUESTS_KEPT = 5;

/** A kept request: its call, place, when it was sent, and its body exactly as sent. */
export interface StoredModelRequest extends CallOrigin {
  seq: number;
  /** When it was sent (ms since the epoch). */
  at: number;
  /** The request body, byte for byte the text the Messages API received. */
  body: string;
}

interface Row {
  seq: number;
  kind: string;
  turn: number;
  attempt: number;
  at: number;
  body: string;
  [key: string]: SqlStorageValue;
}

const pieceKey = (seq: number) => `model_request:${seq}`;
const KEYS_OF_OLD = "SELECT 'model_request:' || seq FROM model_requests WHERE seq <= ?";

/** Writes and reads a task's kept model requests. */
export class ModelRequestStore {
  readonly #sql: SqlStorage;
  readonly #long: LongValues;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#long = new LongValues(sql);
  }

  /** Keeps `body` as the newest request and drops those past {@link MODEL_REQUESTS_KEPT}. */
  record(origin: CallOrigin, body: string, at: number): void {
    const seq =
      (this.#sql.exec<{ seq: number }>("SELECT MAX(seq) AS seq FROM model_requests").one().seq ??
        0) + 1;
    this.#sql.exec(
      "INSERT INTO model_requests (seq, kind, turn, attempt, at, body) VALUES (?, ?, ?, ?, ?, ?)",
      seq,
      origin.kind,
      origin.turn,
      origin.attempt,
      at,
      this.#long.put(pieceKey(seq), body),
    );
    const oldest = seq - MODEL_REQUESTS_KEPT;
    if (oldest < 1) return;
    this.#long.drop(KEYS_OF_OLD, oldest);
    this.#sql.exec("DELETE FROM model_requests WHERE seq <= ?", oldest);
  }

  /** The kept requests, oldest first. */
  all(): StoredModelRequest[] {
    return this.#sql
      .exec<Row>("SELECT * FROM model_requests ORDER BY seq")
      .toArray()
      .map((r) => ({
        seq: r.seq,
        ...originOf(r),
        at: r.at,
        body: this.#long.get(pieceKey(r.seq), r.body),
      }));
  }
}
