/**
 * Tasks of the default agent (or another, by `path`) in tests inside workerd, over JSON-RPC v1.0:
 * one started and answered at once, one read, one awaited until it is in a state, and one awaited
 * until its D1 index row is (the row is written after the answer, in the object's background).
 */
import { env } from "cloudflare:workers";
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

/**
 * Polls the D1 index until task `id`'s row is in `state`: the task object writes it in the
 * background, so a blocking answer can reach the caller first (more so on a loaded machine).
 */
export async function untilIndexed(id: string, state: string): Promise<void> {
  await until(
    async () =>
      (
        await env.DB.prepare("SELECT state FROM tasks WHERE id = ?").bind(id).first<{
          state: string;
        }>()
      )?.state,
    (indexed) => indexed === state,
  );
}
