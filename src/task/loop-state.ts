/**
 * The agent loop's durable counters for one task (a single row): turn number, retry attempt,
 * the answer text streamed so far (committed turns and the current turn), usage and stop reason.
 * Counters live here, not in memory, so a restarted object resumes exactly where it stopped.
 */

/** Token usage summed over every model call of the task. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  modelCalls: number;
}

/** The loop row. */
export interface LoopState {
  /** Completed model turns. */
  turn: number;
  /** Failed attempts of the current turn (retries with backoff). */
  attempt: number;
  /** Answer text of completed turns. */
  answerText: string;
  /** Answer text already streamed for the current, unfinished turn. */
  turnText: string;
  /** Whether the answer artifact's first chunk has been emitted. */
  answerStarted: boolean;
  usage: Usage;
  stopReason: string | null;
}

export const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 0,
};

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

/** Adds one call's usage to a running total. */
export function addUsage(total: Usage, call: Omit<Usage, "modelCalls">): Usage {
  return {
    inputTokens: total.inputTokens + call.inputTokens,
    outputTokens: total.outputTokens + call.outputTokens,
    cacheReadTokens: total.cacheReadTokens + call.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + call.cacheWriteTokens,
    modelCalls: total.modelCalls + 1,
  };
}

/** The field-by-field sum of two usages (a sub-agent's usage counted into its parent's). */
export function sumUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    modelCalls: a.modelCalls + b.modelCalls,
  };
}
