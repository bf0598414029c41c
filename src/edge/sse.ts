/**
 * Server-Sent Events framing for A2A streams (Hono's SSE helper): each item is one `data:` event
 * whose `id` is the task event's sequence number, carried by the item itself, a `: keepalive`
 * comment goes out at least every `keepaliveMs`, an error after the stream started is sent as a
 * final error event in the binding's shape, and the stream always ends (never hangs) when the
 * source ends or the client leaves. Items arrive already serialized, so JSON-RPC and REST share
 * this. An open stream re-checks its caller's credentials ({@link watchCredentials}, which the
 * AG-UI face's stream uses too) and ends when they were revoked.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { ledgerMark } from "../platform/ledger.ts";

/** One event: its serialized `data`, and its SSE `id` (the task event's sequence number). */
export interface SseItem {
  data: string;
  id: number | null;
}

/** Options of {@link sseResponse}. */
export interface SseOptions {
  keepaliveMs: number;
  /**
   * The `data` of the error event sent when the source fails mid-stream (the binding's error
   * table, which logs an internal error once).
   */
  errorData(error: unknown): string;
  /** Re-checks the caller's credentials; a stream whose credentials were revoked is ended. */
  stillAuthorized?(): Promise<boolean>;
  /** The `data` of the event that ends a stream whose credentials were revoked. */
  revokedData?(): string;
}

/** What a binding (JSON-RPC or REST) holds for a stream. */
export interface BindingStream {
  keepaliveMs: number;
  onInternalError?(error: unknown): void;
  stillAuthorized?(): Promise<boolean>;
}

/**
 * The {@link SseOptions} of a binding's stream: errors by `errorData`, and
 * `revoked` (the binding's error body) as the last event of a stream whose credentials were revoked.
 */
export function bindingSse(
  binding: BindingStream,
  errorData: (error: unknown) => string,
  revoked: unknown,
): SseOptions {
  return {
    keepaliveMs: binding.keepaliveMs,
    errorData,
    ...(binding.stillAuthorized
      ? { stillAuthorized: binding.stillAuthorized, revokedData: () => JSON.stringify(revoked) }
      : {}),
  };
}

/** How often an open stream re-checks its credentials. */
export const STREAM_AUTH_RECHECK_MS = 5_000;

/** What the last event of a stream whose credentials were revoked says. */
export const REVOKED_MESSAGE = "Unauthorized: the credentials were revoked";

/** Time to the next multiple of {@link STREAM_AUTH_RECHECK_MS} on the clock (never 0). */
export function untilNextRecheck(now = Date.now()): number {
  return STREAM_AUTH_RECHECK_MS - (now % STREAM_AUTH_RECHECK_MS);
}

/**
 * Re-checks a stream's credentials every {@link STREAM_AUTH_RECHECK_MS} (a check that fails to
 * run counts as still authorized) and calls `onRevoked` once when they no longer stand. Returns
 * the function that stops the checks. The checks fall on the clock's multiples of the period, so
 * every open stream of an isolate checks at the same moment and their tokens are looked up
 * together (auth/token-validity.ts).
 */
export function watchCredentials(
  stillAuthorized: () => Promise<boolean>,
  onRevoked: () => unknown,
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    if (stopped) return;
    if (!(await stillAuthorized().catch(() => true)) && !stopped) {
      stopped = true;
      await onRevoked();
      return;
    }
    if (!stopped) timer = setTimeout(tick, untilNextRecheck());
  };
  timer = setTimeout(tick, untilNextRecheck());
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** An async generator that yields nothing. */
export async function* nothing(): AsyncGenerator<SseItem, void, undefined> {}

/**
 * Streams `first` (when not null) then everything `rest` yields as SSE events. A stream with
 * nothing to send (a reconnect after the last event of an ended task) closes at once.
 */
export function sseResponse(
  c: Context,
  first: SseItem | null,
  rest: AsyncGenerator<SseItem, unknown, undefined>,
  options: SseOptions,
): Response {
  return streamSSE(c, async (stream) => {
    let sent = false;
    const send = async (data: string, id: number | null) => {
      await stream.writeSSE({ data, ...(id === null ? {} : { id: String(id) }) });
      if (sent) return;
      sent = true;
      ledgerMark("first-event"); // the critical-path ledger (STORAGE_METER)
    };
    const keepalive = setInterval(() => void stream.write(": keepalive\n\n"), options.keepaliveMs);
    let revoked = false;
    const stopRecheck = options.stillAuthorized
      ? watchCredentials(options.stillAuthorized, async () => {
          if (stream.aborted) return;
          revoked = true;
          if (options.revokedData) await send(options.revokedData(), null).catch(() => {});
          await stream.close();
          void rest.return(undefined);
        })
      : () => {};
    stream.onAbort(() => {
      clearInterval(keepalive);
      stopRecheck();
      void rest.return(undefined);
    });
    try {
      if (first !== null) await send(first.data, first.id);
      while (!stream.aborted && !revoked) {
        const next = await rest.next();
        if (next.done || revoked) break;
        await send(next.value.data, next.value.id);
      }
    } catch (error) {
      const data = options.errorData(error);
      if (!stream.aborted) await send(data, null);
    } finally {
      clearInterval(keepalive);
      stopRecheck();
    }
  });
}

/**
 * The SSE response of a stream of `source`'s values, each made an item by `item`. The first value
 * is awaited here, so a refusal is thrown (for the binding to answer) before the stream starts;
 * a source with none (a reconnect after the last event of an ended task) closes at once.
 */
export async function sourceSse<T>(
  c: Context,
  source: AsyncGenerator<T, unknown, undefined>,
  item: (value: T) => SseItem,
  options: SseOptions,
): Promise<Response> {
  const first = await source.next();
  async function* rest(): AsyncGenerator<SseItem, void, undefined> {
    for await (const value of source) yield item(value);
  }
  return sseResponse(c, first.done ? null : item(first.value), rest(), options);
}

/** A stream of exactly one event (an error answered in the stream a client asked for). */
export function sseOnce(c: Context, data: string): Response {
  return sseResponse(c, { data, id: null }, nothing(), {
    keepaliveMs: 60_000,
    errorData: () => data,
  });
}
