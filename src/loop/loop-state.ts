/**
 * The agent loop's state between steps and the token usage it counts: the shapes the loop reads
 * and returns (the task object stores them, task/loop-state.ts), and usage arithmetic. Pure.
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
}

export const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 0,
};

/** A task's loop before its first step. */
export const INITIAL_LOOP_STATE: LoopState = {
  turn: 0,
  attempt: 0,
  answerText: "",
  turnText: "",
  answerStarted: false,
  usage: EMPTY_USAGE,
};

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
