/**
 * Calling a task object from the task gateway: a refusal (`ok: false`) becomes the @a2a-js/sdk's
 * typed A2A error; a stream cut by a restart resumes after its last event. The calls themselves
 * are retried on transient failures by the bindings (platform/bindings.ts, platform/retry.ts).
 */
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { isTransient, RETRY_ATTEMPTS } from "../platform/retry.ts";
import { TaskGenerationMismatchError } from "../protocol/generation-error.ts";
import { protoEvent } from "../protocol/proto-json.ts";
import type { SequencedEvent, Task } from "../protocol/wire.ts";
import type { TaskResult } from "../task/rpc-types.ts";
import { decodeLines } from "../task/runtime/ndjson.ts";
import type { GatewayEvent } from "./task-gateway.ts";

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
      if (!isTransient(error) || attempt >= RETRY_ATTEMPTS) throw error;
      const after = last ?? 0;
      stream = unwrap(await resubscribe(after));
    }
  }
}
