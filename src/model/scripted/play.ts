/**
 * Response side of the scripted Messages API: plays one Turn either as a real SSE stream
 * (message_start, ping, thinking/text/tool_use blocks, message_delta, message_stop), paced
 * by awaited sleeps inside a pull-based ReadableStream that stops when the client cancels
 * or the request aborts, or as one complete Message JSON (the plan comes from plan.ts). Web APIs
 * only (workerd and Node).
 */
import { emptyBlock, messageShell, type Plan, planTurn, randomHex } from "./plan.ts";
import type { ScenarioStore } from "./store.ts";
import type { Turn } from "./turn.ts";

/** What a played turn needs besides the turn itself. */
export interface PlayContext {
  messageId: string;
  model: string;
  /** Estimated input tokens of the request (used unless the turn overrides them). */
  inputTokens: number;
  /** 1-based attempt number of this (scenario, turn index). */
  attempt: number;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  store: ScenarioStore;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Splits serialized tool input into 2-3 pieces, like the real API's input_json_delta. */
function jsonPieces(json: string): string[] {
  const count = Math.min(3, json.length);
  const size = Math.ceil(json.length / count);
  return chunks(json, size);
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

async function* produceEvents(plan: Plan, ctx: PlayContext): AsyncGenerator<string> {
  const { signal } = ctx;
  yield sse("message_start", { type: "message_start", message: messageShell(plan, ctx, false) });
  yield sse("ping", { type: "ping" });
  let deltas = 0;
  let textDeltas = 0;
  let stall = plan.stall;
  let midError = plan.midError;
  const cut = plan.cut;
  // Runs due stalls, mid-stream errors and cuts; true means the stream must end now (a dropped
  // connection throws: the body errors).
  async function* checkpoint(final: boolean): AsyncGenerator<string, boolean> {
    if (stall && (final || textDeltas >= stall.afterChunks)) {
      const ms = stall.ms;
      stall = null;
      await sleep(ms, signal);
    }
    if (midError && (final || textDeltas >= midError.afterChunks)) {
      const { type, message } = midError;
      midError = null;
      yield sse("error", { type: "error", error: { type, message } });
      return true;
    }
    if (cut && (final || textDeltas >= cut.afterChunks)) {
      if (cut.how === "drop") throw new Error("scripted: the connection dropped");
      return true;
    }
    return false;
  }
  async function* delta(index: number, payload: Record<string, unknown>): AsyncGenerator<string> {
    if (deltas > 0) await sleep(plan.delayMs, signal);
    if (signal.aborted) return;
    deltas += 1;
    yield sse("content_block_delta", { type: "content_block_delta", index, delta: payload });
  }

  const hasText = plan.blocks.some((b) => b.type === "text");
  for (const [index, block] of plan.blocks.entries()) {
    if (signal.aborted) return;
    if (block.type === "tool_use" && !hasText && (yield* checkpoint(false))) return;
    yield sse("content_block_start", {
      type: "content_block_start",
      index,
      content_block: emptyBlock(block),
    });
    if (block.type === "thinking") {
      for (const piece of chunks(block.thinking, plan.chunkSize)) {
        yield* delta(index, { type: "thinking_delta", thinking: piece });
      }
      yield* delta(index, { type: "signature_delta", signature: block.signature });
    } else if (block.type === "text") {
      if (yield* checkpoint(false)) return;
      for (const piece of chunks(block.text, plan.chunkSize)) {
        yield* delta(index, { type: "text_delta", text: piece });
        if (signal.aborted) return;
        textDeltas += 1;
        if (yield* checkpoint(false)) return;
      }
    } else {
      for (const piece of jsonPieces(JSON.stringify(block.input))) {
        yield* delta(index, { type: "input_json_delta", partial_json: piece });
      }
    }
    if (signal.aborted) return;
    yield sse("content_block_stop", { type: "content_block_stop", index });
  }
  if (yield* checkpoint(true)) return;
  if (signal.aborted) return;
  yield sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: plan.stopReason, stop_sequence: null, stop_details: null },
    usage: plan.usage,
  });
  yield sse("message_stop", { type: "message_stop" });
}

/** Plays `turn` as a `text/event-stream` response, one write per event. */
export function streamTurn(turn: Turn, ctx: PlayContext): Response {
  const plan = planTurn(turn, ctx);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  const events = produceEvents(plan, { ...ctx, signal: stop.signal });
  const encoder = new TextEncoder();
  let started = false;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    ctx.signal.removeEventListener("abort", onAbort);
    if (started) ctx.store.streamEnded();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          ctx.store.streamStarted();
        }
        let next: IteratorResult<string>;
        try {
          next = await events.next();
        } catch (error) {
          // A scripted dropped connection: the body errors, and the server drops the socket.
          finish();
          controller.error(error);
          return;
        }
        if (finished) return;
        try {
          if (next.done || stop.signal.aborted) {
            finish();
            controller.close();
          } else {
            controller.enqueue(encoder.encode(next.value));
          }
        } catch {
          finish();
        }
      },
      async cancel() {
        stop.abort();
        finish();
        await events.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return sseResponse(body, `req_scripted_${randomHex(24)}`);
}

/** A Messages API stream's response: the SSE body with the API's headers. */
export function sseResponse(body: ReadableStream<Uint8Array>, requestId: string): Response {
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "request-id": requestId,
    },
  });
}

/**
 * Plays `turn` as a complete Message. A stall delays the answer; a mid-stream error on this
 * attempt becomes an HTTP error, returned as `{ error }` for the caller to send.
 */
export async function completeTurn(
  turn: Turn,
  ctx: PlayContext,
): Promise<{ message: Record<string, unknown> } | { error: { type: string; message: string } }> {
  const plan = planTurn(turn, ctx);
  if (plan.stall) await sleep(plan.stall.ms, ctx.signal);
  if (plan.midError) return { error: { type: plan.midError.type, message: plan.midError.message } };
  return { message: messageShell(plan, ctx, true) };
}
