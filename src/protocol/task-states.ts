/**
 * A task's state, in the three spellings the harness meets, and the one map between them:
 * - the wire enum (A2A v1.0 ProtoJSON): `TASK_STATE_INPUT_REQUIRED`, what tasks hold and every
 *   v1.0 binding sends;
 * - the word: `input-required`, how A2A v0.3's JSON-RPC spells a state and what people read (MCP
 *   tool results, the console, the CLI, notes for the model, HANDOFF.md);
 * - the v0.3 proto enum of the v0.3 HTTP+JSON binding: the wire enum, but `TASK_STATE_CANCELLED`.
 * Also which states end a task and which pause it for the client. No imports, so the console and
 * the CLI import it too. Pure: no I/O.
 */

/** The task states of A2A v1.0, in the order of the spec's enum. */
export const TASK_STATES = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
] as const;

/** A task state as the wire spells it. */
export type TaskStateName = (typeof TASK_STATES)[number];

/** Each state's word. */
const WORDS = {
  TASK_STATE_SUBMITTED: "submitted",
  TASK_STATE_WORKING: "working",
  TASK_STATE_COMPLETED: "completed",
  TASK_STATE_FAILED: "failed",
  TASK_STATE_CANCELED: "canceled",
  TASK_STATE_INPUT_REQUIRED: "input-required",
  TASK_STATE_REJECTED: "rejected",
  TASK_STATE_AUTH_REQUIRED: "auth-required",
} as const satisfies Record<TaskStateName, string>;

/** A task state as a word (`input-required`). */
export type StateWord = (typeof WORDS)[TaskStateName];

/** The words of {@link TASK_STATES}, in the same order. */
export const STATE_WORDS: readonly StateWord[] = TASK_STATES.map((state) => WORDS[state]);

const isTaskState = (value: string): value is TaskStateName => Object.hasOwn(WORDS, value);

/**
 * The wire state `value` names, or undefined when it names none: how a state read from outside
 * the type system (a peer's answer, a stored column) becomes a {@link TaskStateName}.
 */
export function taskStateOf(value: unknown): TaskStateName | undefined {
  return typeof value === "string" && isTaskState(value) ? value : undefined;
}

/**
 * A state the harness stored itself (a task's row, the D1 index), read back. Only states are
 * written there, so anything else is a broken row: thrown, never passed on as a state.
 */
export function storedTaskState(value: unknown): TaskStateName {
  const state = taskStateOf(value);
  if (state === undefined)
    throw new Error(`stored task state is not a state: ${JSON.stringify(value)?.slice(0, 40)}`);
  return state;
}

/**
 * The word of a state (`TASK_STATE_INPUT_REQUIRED` -> `input-required`). It takes anything a peer
 * or a stored record may hold: a state it does not know is written the same way (its
 * `TASK_STATE_` prefix dropped, lower case, `_` as `-`), and a value that is not text is "".
 */
export function stateWord(state: unknown): string {
  if (typeof state !== "string") return "";
  if (isTaskState(state)) return WORDS[state];
  return state
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replaceAll("_", "-");
}

/** The state a word names (`input-required` -> `TASK_STATE_INPUT_REQUIRED`), or undefined. */
export function stateOfWord(word: string): TaskStateName | undefined {
  return TASK_STATES.find((state) => WORDS[state] === word);
}

/** A state as the v0.3 proto spells it (HTTP+JSON v0.3): `TASK_STATE_CANCELLED` for canceled. */
export function stateToV03Proto(state: TaskStateName): string {
  return state === "TASK_STATE_CANCELED" ? "TASK_STATE_CANCELLED" : state;
}

/** States after which a task never changes again (spec 3.1.1). */
export const TERMINAL_STATES: ReadonlySet<TaskStateName> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
]);

/** States in which a task waits for the client; a blocking send returns at these too. */
export const INTERRUPTED_STATES: ReadonlySet<TaskStateName> = new Set([
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
]);

/** True when the task can never change again. */
export function isTerminal(state: TaskStateName): boolean {
  return TERMINAL_STATES.has(state);
}

/**
 * True when a blocking call returns and a stream's interaction ends (v0.3's `final: true`): the
 * task ended or waits for the client.
 */
export function isSettled(state: TaskStateName): boolean {
  return TERMINAL_STATES.has(state) || INTERRUPTED_STATES.has(state);
}
