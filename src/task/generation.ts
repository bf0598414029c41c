/**
 * A task's generation (the A2A 1.1 draft's `Task.generation`, served under the generations
 * extension): the sequence number of the newest event in its event log. Event 1 is the Task as
 * created, and every status or artifact change appends exactly one event, so the generation starts
 * at 1 and grows by one per change, and an event's sequence number is the generation after it.
 * A snapshot and the generation are read in the same synchronous step, so they agree. A long poll
 * ({@link movedPast}) listens to the event log, so the task's own commit wakes it; it holds a
 * listener and a timer, never storage, and lets both go at its cap even if its caller left.
 */
import { isTerminal } from "../protocol/task-states.ts";
import type { Task } from "../protocol/wire.ts";
import type { TaskResult } from "./rpc-types.ts";
import type { TaskState } from "./runtime/task-state.ts";

/** What reading a generation needs of the task. */
type Generations = Pick<TaskState, "log" | "snapshot">;

/** The task's generation now. */
export const generationOf = (task: Pick<TaskState, "log">): number => task.log.lastSeq;

/**
 * The task as it is now, with at most `historyLength` messages; with its generation (as the
 * ProtoJSON string of an int64) when `generation` is asked for.
 */
export function taskAnswer(task: Generations, historyLength?: number, generation = false): Task {
  const snapshot = task.snapshot(historyLength);
  return generation ? { ...snapshot, generation: String(generationOf(task)) } : snapshot;
}

/**
 * The refusal of a message whose `ifGenerationMatch` is not the task's generation (the draft's
 * TaskGenerationMismatchError, with its ErrorInfo metadata), or null when it matches or names none.
 */
export function generationMismatch<T>(
  task: Pick<TaskState, "log">,
  taskId: string,
  expected: number | undefined,
): TaskResult<T> | null {
  const current = generationOf(task);
  if (expected === undefined || expected === current) return null;
  return {
    ok: false,
    error: {
      kind: "generation_mismatch",
      message: `Task generation mismatch: expected ${expected} but current generation is ${current}`,
      metadata: {
        taskId,
        expectedGeneration: String(expected),
        currentGeneration: String(current),
      },
    },
  };
}

/**
 * Resolves once the task's generation is past `after` (at once when it already is, or the task
 * has ended and moves no more), woken by the event log's commit of the event that moves it; or
 * after `holdMs`, the cap (the draft lets a server answer early with the task as it is).
 */
export function movedPast(
  task: Pick<TaskState, "log" | "store">,
  after: number,
  holdMs: number,
): Promise<void> {
  const state = task.store.record?.state;
  if (generationOf(task) > after || !state || isTerminal(state)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop();
      resolve();
    };
    const stop = task.log.subscribe((entry) => {
      if (entry.seq > after) done();
    });
    const timer = setTimeout(done, holdMs);
  });
}
