/**
 * Server-Sent Events framing for A2A streams (Hono's SSE helper): each JSON-RPC response is one
 * `data:` event whose `id` is the task event's sequence number, a `: keepalive` comment goes out
 * at least every `keepaliveMs`, an error after the stream started is sent as a final JSON-RPC
 * error event, and the stream always ends (never hangs) when the source ends or the client leaves.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { errorResponse } from "./jsonrpc-errors.ts";

/** Options of {@link sseResponse}. */
export interface SseOptions {
  /** The JSON-RPC request id, for the error event. */
  requestId: string | number | null;
  keepaliveMs: number;
  /** Sequence number of the event just pulled from `rest` (or `first`). */
  currentId(): number | null;
  onError?(error: unknown): void;
}

/** Streams `first` then everything `rest` yields as SSE events. */
export function sseResponse(
  c: Context,
  first: unknown,
  rest: AsyncGenerator<unknown, unknown, undefined>,
  options: SseOptions,
): Response {
  const firstId = options.currentId();
  return streamSSE(c, async (stream) => {
    const keepalive = setInterval(() => void stream.write(": keepalive\n\n"), options.keepaliveMs);
    stream.onAbort(() => {
      clearInterval(keepalive);
      void rest.return(undefined);
    });
    const send = (data: unknown, id: number | null) =>
      stream.writeSSE({ data: JSON.stringify(data), ...(id === null ? {} : { id: String(id) }) });
    try {
      await send(first, firstId);
      while (!stream.aborted) {
        const next = await rest.next();
        if (next.done) break;
        await send(next.value, options.currentId());
      }
    } catch (error) {
      options.onError?.(error);
      if (!stream.aborted) await send(errorResponse(options.requestId, error), null);
    } finally {
      clearInterval(keepalive);
    }
  });
}
