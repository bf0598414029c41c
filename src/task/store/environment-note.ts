/**
 * A task's environment note (workspace listing, what remains, the latest handoff, the date; see
 * `environmentNote` in loop/prompt/prompt.ts): made at the task's first step and kept in hook state (one
 * row). The task's model conversation shows it in front of the task's first message (the
 * conversation store puts it there on read, see {@link noteOverlay}), and the conversation's
 * record of the task gets the same text when the task releases it. It also records whether the
 * task's tools reach its workspace (`files: false`: they do not, so the task never calls the
 * workspace object: no snapshot, no end note).
 */
import type { HookState } from "../../loop/contracts.ts";
import type { ConversationStore } from "./conversation-store.ts";
import type { TaskStore } from "./task-store.ts";

/** Where a task keeps its environment note, and which history message it stands in front of. */
const ENVIRONMENT_HOOK = "harness";
const ENVIRONMENT_KEY = "environment";

/** What the note reads and writes in the task. */
export interface NoteRuntime {
  hookState: HookState;
  conversation: Pick<ConversationStore, "rows">;
  store: Pick<TaskStore, "historyAfter">;
}

/** A task's environment note and the positions of the message it precedes. */
export interface EnvironmentNote {
  text: string;
  /** In the task's history. */
  historySeq: number;
  /** In the model conversation; absent in a note made before the store put it there on read. */
  conversationIdx?: number;
  /** False when the task's tools reach no workspace file (absent: they do). */
  files?: false;
}

/** The task's environment note, once its first step made one. */
export function environmentNoteOf(rt: Pick<NoteRuntime, "hookState">): EnvironmentNote | undefined {
  return rt.hookState.get<EnvironmentNote>(ENVIRONMENT_HOOK, ENVIRONMENT_KEY);
}

/** The note the conversation store shows in front of its row `idx`, if there is one. */
export function noteOverlay(hookState: HookState): { idx: number; text: string } | undefined {
  const note = environmentNoteOf({ hookState });
  return note?.conversationIdx === undefined
    ? undefined
    : { idx: note.conversationIdx, text: note.text };
}

/**
 * Puts the environment note in front of the task's first message in its model conversation (and
 * remembers it, so the conversation's record of the task gets the same text on release): every
 * later request of the task, and of later tasks in the conversation, starts with the same prefix.
 */
export function attachEnvironment(rt: NoteRuntime, text: string, files = true): void {
  const own = rt.conversation
    .rows()
    .find((r) => r.contextSeq === null && r.message.role === "user");
  const first = rt.store.historyAfter(0).find((h) => h.message.role === "ROLE_USER");
  rt.hookState.set(ENVIRONMENT_HOOK, ENVIRONMENT_KEY, {
    text,
    historySeq: first?.seq ?? 0,
    ...(own ? { conversationIdx: own.idx } : {}),
    ...(files ? {} : { files: false as const }),
  } satisfies EnvironmentNote);
}

/**
 * Whether the task works with its workspace: its first step found tools that reach it, or a
 * later one did ({@link reachedFiles}); true before the first step (the end note is then written
 * as always).
 */
export function usesWorkspace(rt: Pick<NoteRuntime, "hookState">): boolean {
  return environmentNoteOf(rt)?.files !== false;
}

/** A step of a task whose first step had no file tools has some now (its agent changed). */
export function reachedFiles(rt: Pick<NoteRuntime, "hookState">): void {
  const note = environmentNoteOf(rt);
  if (note?.files !== false) return;
  const { files: _, ...rest } = note;
  rt.hookState.set(ENVIRONMENT_HOOK, ENVIRONMENT_KEY, rest satisfies EnvironmentNote);
}
