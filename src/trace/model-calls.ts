/**
 * The task's model calls, one row each in its SQLite (`model_calls`): when it ran, on which model,
 * the tokens it used and why it stopped, or why it failed. A call that used tokens is written in
 * the transaction that adds them to the task's usage, so the rows always sum to the task's own
 * usage. No text of the prompt or the completion is kept here. The trace's model spans are read
 * from these rows.
 */

/** Which call of the task a model call is: its kind, turn and attempt. */
export interface CallOrigin {
  /** `turn`: an agent-loop turn; `compaction`: a summary of older turns. */
  kind: "turn" | "compaction";
  turn: number;
  attempt: number;
}

/** The origin a stored row records (`model_calls`, `model_requests`). */
export function originOf(row: { kind: string; turn: number; attempt: number }): CallOrigin {
  return {
    kind: row.kind === "compaction" ? "compaction" : "turn",
    turn: row.turn,
    attempt: row.attempt,
  };
}

/** A model call as the loop reports it. */
export interface ModelCall extends CallOrigin {
  model: string;
  startedAt: number;
  endedAt: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  stopReason: string | null;
  /** Why the call failed (no tokens were counted), else null. */
  error: string | null;
}

/** A stored model call with its position. */
export interface StoredModelCall extends ModelCall {
  seq: number;
}

interface Row {
  seq: number;
  kind: string;
  turn: number;
  attempt: number;
  model: string;
  started_at: number;
  ended_at: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  stop_reason: string | null;
  error: string | null;
  [key: string]: SqlStorageValue;
}

/** Appends and reads model call rows (no copy in memory: read only for traces). */
export class ModelCallStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Appends a call (call it inside the transaction that counts its tokens). */
  record(call: ModelCall): void {
    this.#sql.exec(
      // seq is the rowid: SQLite numbers the row itself.
      `INSERT INTO model_calls (kind, turn, attempt, model, started_at, ended_at, input_tokens,
        output_tokens, cache_read_tokens, cache_write_tokens, stop_reason, error)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      call.kind,
      call.turn,
      call.attempt,
      call.model,
      call.startedAt,
      call.endedAt,
      call.inputTokens,
      call.outputTokens,
      call.cacheReadTokens,
      call.cacheWriteTokens,
      call.stopReason,
      call.error === null ? null : call.error.slice(0, 300),
    );
  }

  /** Every call, oldest first (none before the task's schema exists). */
  all(): StoredModelCall[] {
    return this.#sql
      .exec<Row>("SELECT * FROM model_calls ORDER BY seq")
      .toArray()
      .map((r) => ({
        seq: r.seq,
        ...originOf(r),
        model: r.model,
        startedAt: r.started_at,
        endedAt: r.ended_at,
        inputTokens: r.input_tokens,
        outputTokens: r.output_tokens,
        cacheReadTokens: r.cache_read_tokens,
        cacheWriteTokens: r.cache_write_tokens,
        stopReason: r.stop_reason,
        error: r.error,
      }));
  }
}
