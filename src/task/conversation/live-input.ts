/**
 * Live input: messages sent to a working task (the live-messages extension,
 * protocol/live-message.ts). The queue is the task's own history: a user message there after the
 * point its model conversation has taken (the context link's `conversationUpto`, which
 * context-membership.ts moves when the task joins its conversation) waits for the next model step.
 * Accepting one (incoming.ts) writes it to history, marked with the extension, and its echo
 * ({@link liveEcho}) to the event log, one unit; taking the queue appends each message to the conversation as a user turn and moves that
 * point, one unit. So a message is kept with the task across restarts, taken once, and never taken
 * again by a later join.
 */
import type { ChatMessage } from "../../loop/chat-message.ts";
import { toUserContent } from "../../loop/prompt/user-content.ts";
import { LIVE_MESSAGE_MAX_CHARS, LIVE_QUEUE_MAX } from "../../protocol/live-message.ts";
import type { Message, StreamEvent } from "../../protocol/wire.ts";
import type { TaskErrorKind } from "../rpc-types.ts";
import type { TaskState } from "../runtime/task-state.ts";

/** What live input reads and writes in the task. */
export type LiveTask = Pick<TaskState, "unit" | "store" | "log" | "contextLink">;

/** The messages waiting for the task's next model step, oldest first. */
export function queuedLive(task: Pick<LiveTask, "store" | "contextLink">): Message[] {
  return task.store
    .historyAfter(task.contextLink.get().conversationUpto)
    .flatMap((entry) => (entry.message.role === "ROLE_USER" ? [entry.message] : []));
}

/** Why the task cannot queue `message` (null when it can): too large, or the queue is full. */
export function liveRefusal(
  task: Pick<LiveTask, "store" | "contextLink">,
  message: Message,
): { kind: TaskErrorKind; message: string } | null {
  const size = JSON.stringify(message.parts).length;
  if (size > LIVE_MESSAGE_MAX_CHARS)
    return {
      kind: "invalid",
      message: `a live message may carry at most ${LIVE_MESSAGE_MAX_CHARS} characters of parts (this one has ${size})`,
    };
  if (queuedLive(task).length >= LIVE_QUEUE_MAX)
    return {
      kind: "queue_full",
      message: `the task already has ${LIVE_QUEUE_MAX} live messages waiting for its next step; send again once it has taken them`,
    };
  return null;
}

/** The stream event that shows a live message: a working status update carrying it. */
export function liveEcho(record: { id: string; contextId: string }, message: Message): StreamEvent {
  return {
    statusUpdate: {
      taskId: record.id,
      contextId: record.contextId,
      status: { state: "TASK_STATE_WORKING", timestamp: new Date().toISOString(), message },
    },
  };
}

/**
 * Takes the queued messages into the model conversation as user turns, one unit of work, and
 * returns them. Nothing while tool calls wait (their results must follow their turn first).
 */
export function takeLive(task: LiveTask & Pick<TaskState, "conversation" | "pending">): Message[] {
  if (task.pending.get()) return [];
  const entries = task.store.historyAfter(task.contextLink.get().conversationUpto);
  const last = entries.at(-1);
  const taken = entries.flatMap((e) => (e.message.role === "ROLE_USER" ? [e.message] : []));
  if (!last || taken.length === 0) return [];
  task.unit.run(() => {
    for (const message of taken) {
      const turn: ChatMessage = { role: "user", content: toUserContent(message.parts) };
      task.conversation.append(turn);
    }
    task.contextLink.patch({ conversationUpto: last.seq });
  });
  return taken;
}
