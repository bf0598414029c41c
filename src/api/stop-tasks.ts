/**
 * Stopping a user's running tasks when an admin revokes them: every task the D1 index lists for
 * the owner in a state that is not final (submitted, working, input-required, auth-required) is
 * canceled through its own object, root tasks first (each also cancels the sub-agent tasks it
 * started), with a status message saying why. At most {@link STOP_LIMIT} tasks per call and 6
 * objects at a time; a task whose object fails to answer is left to the next call.
 */
import { log } from "../platform/logging.ts";
import { stubByName } from "../platform/object-stub.ts";
import { TERMINAL_STATES } from "../protocol/task-states.ts";
import { tasksNotIn } from "../store/task-queries.ts";

/** How many tasks one call looks at (a call is one request: its subrequests are bounded). */
export const STOP_LIMIT = 200;
const PARALLEL = 6;

/** The status message of a task stopped because its owner's access was revoked. */
export const REVOKED_REASON = "Canceled: the owner's access was revoked.";

/** What a stop did: how many tasks it canceled, and whether more may be left. */
export interface StopResult {
  canceled: number;
  more: boolean;
}

/** Cancels the owner's unfinished tasks (see the file's comment). */
export async function stopTasksOf(env: Env, owner: string): Promise<StopResult> {
  const rows = await tasksNotIn(env.DB, owner, [...TERMINAL_STATES], STOP_LIMIT);
  let canceled = 0;
  for (let i = 0; i < rows.length; i += PARALLEL) {
    const results = await Promise.all(
      rows.slice(i, i + PARALLEL).map((row) =>
        stubByName(env.TASKS, row.id)
          .cancel({ owner, reason: REVOKED_REASON })
          .then((result) => result.ok)
          .catch((error: unknown) => {
            log("warn", "could not stop a revoked user's task", {
              taskId: row.id,
              error: error instanceof Error ? error.message : String(error),
            });
            return false;
          }),
      ),
    );
    canceled += results.filter(Boolean).length;
  }
  return { canceled, more: rows.length === STOP_LIMIT };
}
