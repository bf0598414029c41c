/**
 * A task's environment note (workspace listing, what remains, the latest handoff, the date; see
 * `environmentNote` in loop/prompt.ts): made at the task's first step, put in front of the task's
 * first message in its model conversation, and kept in hook state so the conversation's record of
 * the task gets the same text when the task releases it.
 */
import { withEnvironmentNote } from "../loop/user-content.ts";
import type { TaskRuntime } from "./task-runtime.ts";

/** Where a task keeps its environment note, and which history message it stands in front of. */
const ENVIRONMENT_HOOK = "harness";
const ENVIRONMENT_KEY = "environment";

/** What the note reads and writes in the task. */
export type NoteRuntime = Pick<TaskRuntime, "hookState" | "conversation" | "store" | "transaction">;

/** A task's environment note and the history position of the message it precedes. */
export interface EnvironmentNote {
  text: string;
  historySeq: number;
}

/** The task's environment note, once its first step made one. */
export function environmentNoteOf(rt: Pick<NoteRuntime, "hookState">): EnvironmentNote | undefined {
  return rt.hookState.get<EnvironmentNote>(ENVIRONMENT_HOOK, ENVIRONMENT_KEY);
}

/**
 * Puts the environment note in front of the task's first message in its model conversation (and
 * remembers it, so the conversation's record of the task gets the same text on release): every
 * later request of the task, and of later tasks in the conversation, starts with the same prefix.
 */
export function attachEnvironment(rt: NoteRuntime, text: string): void {
  rt.transaction(() => {
    const own = rt.conversation
      .rows()
      .find((r) => r.contextSeq === null && r.message.role === "user");
    const first = rt.store.historyAfter(0).find((h) => h.message.role === "ROLE_USER");
    if (own)
      rt.conversation.replaceContent(own.idx, withEnvironmentNote(own.message.content, text));
    rt.hookState.set(ENVIRONMENT_HOOK, ENVIRONMENT_KEY, {
      text,
      historySeq: first?.seq ?? 0,
    } satisfies EnvironmentNote);
  });
}
