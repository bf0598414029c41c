/**
 * The agent loop's state between steps: the shapes the loop reads and returns (the task object
 * stores them, task/store/loop-state.ts). Token usage and its arithmetic are model/usage.ts's. Pure.
 */
import type { FaultKind } from "../model/errors.ts";
import { EMPTY_USAGE, type Usage } from "../model/usage.ts";

/** The loop row. */
export interface LoopState {
  /** Completed model turns. */
  turn: number;
  /** Failed attempts of the current turn (retries with backoff). */
  attempt: number;
  /** The current turn's failed attempts by kind of fault (their retries are counted by kind). */
  faults: Partial<Record<FaultKind, number>>;
  /** Answer text of completed turns. */
  answerText: string;
  /** Answer text already streamed for the current, unfinished turn. */
  turnText: string;
  /** Whether the answer artifact's first chunk has been emitted. */
  answerStarted: boolean;
  usage: Usage;
}

/** A task's loop before its first step. */
export const INITIAL_LOOP_STATE: LoopState = {
  turn: 0,
  attempt: 0,
  faults: {},
  answerText: "",
  turnText: "",
  answerStarted: false,
  usage: EMPTY_USAGE,
};
