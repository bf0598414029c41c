/**
 * Tasks that queue in one conversation, for the tests of its order: a first task alone in a
 * conversation the server opened and a second sent into it while the first works, both answered
 * at once; and the wait until tasks complete.
 */
import type { WireTask } from "./a2a.ts";
import { getTask, startTask } from "./tasks.ts";
import { until } from "./until.ts";

/**
 * Sends `open <marker>` (a new conversation), then `follow <marker>` into its conversation; each
 * task as its send answered, at once.
 */
export async function openAndFollow(
  marker: string,
): Promise<{ first: WireTask; second: WireTask }> {
  const first = await startTask(`open ${marker}`);
  const second = await startTask(`follow ${marker}`, { contextId: first.contextId });
  return { first, second };
}

/** The tasks, read again until every one of them completed. */
export function allCompleted(tasks: readonly WireTask[]): Promise<WireTask[]> {
  return until(
    () => Promise.all(tasks.map((task) => getTask(task.id))),
    (states) => states.every((t) => t.status.state === "TASK_STATE_COMPLETED"),
  );
}
