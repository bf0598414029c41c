/**
 * Tasks of the default agent (or another, by `path`) in tests inside workerd, over JSON-RPC v1.0:
 * one started and answered at once, one read, one awaited until it is in a state.
 */
import { type RpcOptions, rpc, sendTask, userMessage, type WireTask } from "./a2a.ts";
import { until } from "./until.ts";

/** Sends `text` as a new task answered at once (`returnImmediately`); the task as it started. */
export function startTask(
  text: string,
  message: Record<string, unknown> = {},
  options: RpcOptions = {},
): Promise<WireTask> {
  return sendTask(
    { message: userMessage(text, message), configuration: { returnImmediately: true } },
    options,
  );
}

/** GetTask's task (undefined on an error). */
export async function getTask(id: string, options: RpcOptions = {}): Promise<WireTask> {
  return (await rpc<WireTask>("GetTask", { id }, options)).result as WireTask;
}

/** Polls GetTask (with `options`) until the task is in `state`, for `timeoutMs` at most. */
export function untilState(
  id: string,
  state: string,
  timeoutMs?: number,
  options: RpcOptions = {},
): Promise<WireTask> {
  return until(
    () => getTask(id, options),
    (t) => t.status.state === state,
    timeoutMs,
  );
}
