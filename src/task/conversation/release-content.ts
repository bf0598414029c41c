/**
 * What a task hands back to its conversation when it releases it: its turns since its last
 * release as model messages (the user's messages and the agent's answers, not the harness events
 * in its history; its first message with the environment note it was sent with, so later tasks
 * send the same prefix and read it from the prompt cache), the history position they reach, and
 * the compaction note that covered conversation turns. A request the model declined leaves with
 * its answer and any summary that may quote it: the API wants the refused turn gone (else later
 * turns are refused too), and no user turn stays unanswered. Reads only; no I/O.
 */
import type { ChatMessage } from "../../loop/chat-message.ts";
import type { HookState } from "../../loop/contracts.ts";
import { toUserContent, withEnvironmentNote } from "../../loop/prompt/user-content.ts";
import { REFUSAL_STOP_REASON } from "../../loop/turn/refusal.ts";
import { log } from "../../platform/logging.ts";
import { HARNESS_EVENTS_EXTENSION } from "../../protocol/extensions.ts";
import type { TaskState } from "../runtime/task-state.ts";
import type { ContextLink } from "../store/context-link.ts";
import { environmentNoteOf } from "../store/environment-note.ts";
import type { TaskStore } from "../store/task-store.ts";

/** Where a compaction that covered conversation turns leaves its note for the release. */
export const SUMMARY_HOOK = "compaction";
export const SUMMARY_KEY = "context-summary";

/** What a release hands back. */
export interface ReleaseContent {
  turns: ChatMessage[];
  upto: number;
  summary?: { through: number; message: ChatMessage };
}

/** What the release reads in the task. */
export type ReleasingTask = Pick<TaskState, "store" | "hookState">;

/** The release's content (`dropTurns`: after repeated failures, hand back no turns at all). */
export function releaseContent(
  task: ReleasingTask,
  link: ContextLink,
  dropTurns: boolean,
): ReleaseContent {
  const record = task.store.record;
  const ran = link.state === "active";
  const all = ran ? task.store.historyAfter(link.releasedUpto) : [];
  if (ran && dropTurns && all.length > 0)
    log("error", "conversation turns dropped", { task: record?.id });
  const kept = ran && !dropTurns && !refused(task);
  const summary = kept
    ? task.hookState.get<{ through: number; message: ChatMessage }>(SUMMARY_HOOK, SUMMARY_KEY)
    : undefined;
  return {
    turns: kept ? turnsOf(task, all) : [],
    upto: all.at(-1)?.seq ?? link.releasedUpto,
    ...(summary ? { summary } : {}),
  };
}

/**
 * The turns a conversation's first task hands the conversation's new object: every turn of its
 * history up to position `upto`, as a release would hand them back.
 */
export function handoverTurns(
  rt: { store: TaskStore; hookState: HookState },
  upto: number,
): ChatMessage[] {
  return refused(rt)
    ? []
    : turnsOf(
        rt,
        rt.store.historyAfter(0).filter((h) => h.seq <= upto),
      );
}

/** The task ended because the model declined its request. */
function refused(rt: { store: Pick<TaskStore, "record"> }): boolean {
  const record = rt.store.record;
  return (
    record?.state === "TASK_STATE_REJECTED" && record.metadata.stopReason === REFUSAL_STOP_REASON
  );
}

/** History entries as conversation turns (harness events left out, the note on its message). */
function turnsOf(
  rt: { hookState: HookState },
  all: ReturnType<TaskStore["historyAfter"]>,
): ChatMessage[] {
  const entries = all.filter(
    ({ message }) => !message.extensions?.includes(HARNESS_EVENTS_EXTENSION),
  );
  const note = environmentNoteOf(rt);
  return entries.map(({ seq, message }) =>
    message.role === "ROLE_USER"
      ? {
          role: "user",
          content:
            note && seq === note.historySeq
              ? withEnvironmentNote(toUserContent(message.parts), note.text)
              : toUserContent(message.parts),
        }
      : {
          role: "assistant",
          content: message.parts.map((p) => ({
            type: "text" as const,
            text: p.text ?? JSON.stringify(p.data ?? p.url ?? ""),
          })),
        },
  );
}
