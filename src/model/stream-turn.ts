/**
 * One streaming Messages API call with a watchdog: text deltas go to `onText` as they arrive;
 * if the stream stays silent longer than `idleTimeoutMs` (no event, not even a ping), the call is
 * aborted with {@link ModelStallError}; a stream cut short (an `error` event, a dropped
 * connection, no `message_stop`) throws a ModelStreamCutError (errors.ts `streamFault`). Returns
 * the complete message.
 */

import type {
  Message,
  MessageCreateParamsNonStreaming,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { ledgerMark } from "../platform/ledger.ts";
import type { ModelClient } from "./client.ts";
import { ModelStallError, streamFault } from "./errors.ts";

/** Options of {@link streamTurn}. */
export interface StreamTurnOptions {
  idleTimeoutMs: number;
  signal: AbortSignal;
  onText(delta: string): void;
}

/** Streams one model turn; see the module header. */
export async function streamTurn(
  client: ModelClient,
  params: MessageCreateParamsNonStreaming,
  options: StreamTurnOptions,
): Promise<Message> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  options.signal.addEventListener("abort", onAbort, { once: true });
  let stalled = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const arm = () => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort();
    }, options.idleTimeoutMs);
  };
  arm();
  try {
    ledgerMark("model");
    const stream = client.messages.stream(params, { signal: controller.signal });
    for await (const event of stream) {
      arm();
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
        options.onText(event.delta.text);
      }
    }
    return await stream.finalMessage();
  } catch (error) {
    if (stalled) throw new ModelStallError(options.idleTimeoutMs);
    throw streamFault(error);
  } finally {
    if (timer !== null) clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}
