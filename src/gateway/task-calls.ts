/**
 * Calling a task object from the task gateway: a refusal (`ok: false`) becomes the @a2a-js/sdk's
 * typed A2A error, and a call the platform marks `retryable` (the object restarting) is tried
 * again, up to {@link RPC_RETRIES} times; a stream cut by a restart resumes after its last event.
 */
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { TaskGenerationMismatchError } from "../protocol/generation-error.ts";
import { protoEvent } from "../protocol/proto-json.ts";
import type { SequencedEvent, Task } from "../protocol/wire.ts";
import type { TaskResult } from "../task/rpc-types.ts";
import { decodeLines } from "../task/runtime/ndjson.ts";
import type { GatewayEvent } from "./task-gateway.ts";

/** Attempts of a call to a task object before its error goes to the caller. */
export const RPC_RETRIES = 4;

/** The value of a task call, or the A2A error its refusal stands for. */
export function unwrap<T>(result: TaskResult<T>): T {
  if (result.ok) return result.value;
  const { kind, message } = result.error;
  switch (kind) {
    case "not_found":
      throw new TaskNotFoundError(message);
    case "not_cancelable":
      throw new TaskNotCancelableError(message);
    case "terminal":
    case "busy":
    case "queue_full":
      throw new UnsupportedOperationError(message);
    case "context_mismatch":
    case "invalid":
      throw new RequestMalformedError(message);
    case "generation_mismatch":
      throw new TaskGenerationMismatchError({ message, metadata: result.error.metadata ?? {} });
  }
}

/** Whether the platform marked an RPC error safe to retry. */
export const isRetryable = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "retryable" in error && error.retryable === true;

/** Runs `call`, again after 50, 100, 150 ms while it fails retryably. */
export async function withRetry<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isRetryable(error) || attempt >= RPC_RETRIES) throw error;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

/** The task with at most its last `historyLength` messages (none: no `history` field). */
export function limitHistory(task: Task, historyLength: number): Task {
  const history = historyLength === 0 ? [] : (task.history ?? []).slice(-historyLength);
  const { history: _dropped, ...rest } = task;
  return history.length > 0 ? { ...rest, history } : rest;
}

/**
 * Relays a task object's event stream, each event with its sequence number (its SSE id). When the
 * object restarts mid-way, subscribes again (`resubscribe(after)`) after the last event relayed.
 */
export async function* relayEvents(
  first: ReadableStream<Uint8Array>,
  resubscribe: (after: number) => Promise<TaskResult<ReadableStream<Uint8Array>>>,
): AsyncGenerator<GatewayEvent, void, undefined> {
  let stream = first;
  let last: number | null = null;
  for (let attempt = 1; ; attempt++) {
    try {
      for await (const entry of decodeLines<SequencedEvent>(stream)) {
        last = entry.seq;
        yield { seq: entry.seq, event: protoEvent(entry.event) };
      }
      return;
    } catch (error) {
      if (!isRetryable(error) || attempt >= RPC_RETRIES) throw error;
      const after = last ?? 0;
      stream = unwrap(await withRetry(() => resubscribe(after)));
    }
  }
}
