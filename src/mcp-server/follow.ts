/**
 * A bounded wait on a task's events for the MCP face: follows them until the task settles (ends,
 * or waits for the caller), the wait's deadline passes or the client goes away, and tells each
 * step as a progress note. It never cancels the task: a wait that ends early leaves the task
 * working, to be read or waited on again. No I/O of its own.
 */
import { isAnswerEcho } from "../protocol/answer-echo.ts";
import { partsText } from "../protocol/parts.ts";
import { isSettled, stateWord } from "../protocol/task-states.ts";
import type { Message, StreamEvent, TaskStateName } from "../protocol/wire.ts";

/** How a wait ended: the task it followed (and whether it settled), or an agent's direct reply. */
export type Followed = { taskId: string; settled: boolean } | { reply: Message } | { none: true };

/** What a wait needs: its end, the client's abort signal, and where progress notes go. */
export interface FollowOptions {
  deadline: number;
  signal?: AbortSignal | undefined;
  progress?: ((note: string) => Promise<void>) | undefined;
}

/** The progress note of one event, or null for an event not worth one. */
function noteOf(event: StreamEvent): string | null {
  if ("statusUpdate" in event) {
    const { state, message } = event.statusUpdate.status;
    // The answer's echo repeats the answer artifact's chunks, noted already.
    if (isAnswerEcho(message)) return null;
    const text = partsText(message?.parts).trim();
    return text ? `${stateWord(state)}: ${text.slice(0, 200)}` : stateWord(state);
  }
  if ("artifactUpdate" in event) {
    const { artifact } = event.artifactUpdate;
    const text = artifact.parts.map((part) => part.text ?? "").join("");
    return text ? `${artifact.name ?? artifact.artifactId}: ${text.slice(0, 200)}` : null;
  }
  if ("task" in event) return stateWord(event.task.status.state);
  return null;
}

/** The state an event puts its task in, if it says. */
function stateOf(event: StreamEvent): TaskStateName | null {
  if ("task" in event) return event.task.status.state;
  if ("statusUpdate" in event) return event.statusUpdate.status.state;
  return null;
}

function taskIdOf(event: StreamEvent): string | null {
  if ("task" in event) return event.task.id;
  if ("statusUpdate" in event) return event.statusUpdate.taskId;
  if ("artifactUpdate" in event) return event.artifactUpdate.taskId;
  return null;
}

/** Resolves with null at the deadline or when the signal aborts. */
function stopper(options: FollowOptions): { stopped: Promise<null>; clear(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, options.deadline - Date.now()));
    onAbort = () => resolve(null);
    options.signal?.addEventListener("abort", onAbort);
  });
  return {
    stopped,
    clear() {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Follows `events` until its task settles or the wait ends (see the module header). */
export async function follow(
  events: AsyncGenerator<StreamEvent, void, undefined>,
  options: FollowOptions,
): Promise<Followed> {
  const stop = stopper(options);
  let taskId: string | null = null;
  try {
    for (;;) {
      const next = await Promise.race([events.next(), stop.stopped]);
      if (next === null) {
        // The generator may be waiting on the task's next event: end it without waiting.
        events.return(undefined).catch(() => {});
        return taskId ? { taskId, settled: false } : { none: true };
      }
      if (next.done) return taskId ? { taskId, settled: false } : { none: true };
      const event = next.value;
      if ("message" in event) return { reply: event.message };
      taskId ??= taskIdOf(event);
      const note = noteOf(event);
      if (note && options.progress) await options.progress(note).catch(() => {});
      const state = stateOf(event);
      if (taskId && state && isSettled(state)) {
        events.return(undefined).catch(() => {});
        return { taskId, settled: true };
      }
    }
  } finally {
    stop.clear();
  }
}
