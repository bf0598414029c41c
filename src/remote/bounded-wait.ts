/**
 * A blocking remote call that cannot outlive its step: the message goes without blocking (the
 * remote task's id comes back at once), then the task is read with GetTask, at growing intervals,
 * until it ends or asks for input, or until the step's deadline. A Durable Object's alarm runs at
 * most 15 minutes, and a step the alarm kills runs again, sending the message again; past the
 * deadline the call returns the task as it is, whose id lets the model read or answer it later.
 */

import type { Message, Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { isSettled, taskStateOf } from "../protocol/task-states.ts";
import { outcomeOf, sendRequest } from "./sdk-codec.ts";

/**
 * The first and the longest pause between two reads of the remote task (ms). At most 30 s apart,
 * a 14-minute wait makes about 33 reads: within Workers Free's 50 subrequests per invocation,
 * with room for the step's model call and storage.
 */
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 30_000;

/** What the wait gave: the remote task or message, and whether the deadline cut the wait. */
export interface BoundedResult {
  result: Message | Task;
  cut: boolean;
}

/**
 * Sends the message `input` describes (without blocking) and waits for the remote task to settle, until
 * `deadline` (ms since the epoch; undefined: no bound). The send itself is cut at the deadline.
 */
export async function sendAndWait(
  client: Client,
  input: Omit<Parameters<typeof sendRequest>[0], "returnImmediately">,
  signal: AbortSignal,
  deadline: number | undefined,
): Promise<BoundedResult> {
  const bounded = deadline === undefined ? signal : withDeadline(signal, deadline);
  let result = await client.sendMessage(sendRequest({ ...input, returnImmediately: true }), {
    signal: bounded,
  });
  let pause = FIRST_POLL_MS;
  for (;;) {
    const { taskId, state } = outcomeOf(result);
    const known = taskStateOf(state);
    if (!taskId || state === "MESSAGE" || (known && isSettled(known)))
      return { result, cut: false };
    if (deadline !== undefined && Date.now() + pause >= deadline) return { result, cut: true };
    await scheduler.wait(pause, { signal });
    pause = Math.min(pause * 2, MAX_POLL_MS);
    result = await client.getTask({ tenant: "", id: taskId }, { signal: bounded });
  }
}

/** What a call cut at the deadline tells the model after the task's outcome. */
export function cutNote(taskId: string | null): string {
  return `\n\nIt is still at work, past the time this step may wait. Read it later with a2a_get_task (task_id ${taskId}).`;
}

/** `signal`, aborted also at `deadline`. */
export function withDeadline(signal: AbortSignal, deadline: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(Math.max(0, deadline - Date.now()))]);
}
