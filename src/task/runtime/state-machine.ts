/**
 * The A2A task state machine: which transitions are legal (which states end a task and which
 * pause it: protocol/task-states.ts). Pure: no I/O, no clock.
 */
import type { TaskStateName } from "../../protocol/task-states.ts";

const TRANSITIONS: Readonly<Record<TaskStateName, readonly TaskStateName[]>> = {
  TASK_STATE_SUBMITTED: [
    "TASK_STATE_WORKING",
    "TASK_STATE_REJECTED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_FAILED",
  ],
  TASK_STATE_WORKING: [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_AUTH_REQUIRED",
    "TASK_STATE_REJECTED",
  ],
  // A follow-up to a paused task resumes it (working), or queues it behind another task of the
  // conversation (submitted) until its turn comes.
  TASK_STATE_INPUT_REQUIRED: [
    "TASK_STATE_WORKING",
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_FAILED",
  ],
  TASK_STATE_AUTH_REQUIRED: [
    "TASK_STATE_WORKING",
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_FAILED",
  ],
  TASK_STATE_COMPLETED: [],
  TASK_STATE_FAILED: [],
  TASK_STATE_CANCELED: [],
  TASK_STATE_REJECTED: [],
};

/** True when `from -> to` is a legal transition. */
export function canTransition(from: TaskStateName, to: TaskStateName): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Raised on an illegal transition: a harness bug, never a client error. */
export class IllegalTransitionError extends Error {
  override readonly name = "IllegalTransitionError";
  constructor(from: TaskStateName, to: TaskStateName) {
    super(`illegal task transition ${from} -> ${to}`);
  }
}

/** Returns `to` when legal, else throws {@link IllegalTransitionError}. */
export function transition(from: TaskStateName, to: TaskStateName): TaskStateName {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
  return to;
}
