/**
 * Observing @anthropic-ai/sdk calls in tests: a streaming call that records text deltas, their
 * arrival times, raw event types and the final message; and the APIError a call fails with.
 */
import { type Anthropic, APIError } from "@anthropic-ai/sdk";
import type { Message, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { SCRIPTED_MODEL } from "./scripted-client.ts";

/** What `streamOnce` observed. */
export interface StreamObservation {
  texts: string[];
  /** `Date.now()` when each text delta arrived. */
  at: number[];
  /** Event types, with content_block_delta replaced by its delta type. */
  events: string[];
  message: Message;
}

/** Streams one request with `client.messages.stream` and records what arrives. */
export async function streamOnce(
  client: Anthropic,
  messages: MessageParam[],
  model = SCRIPTED_MODEL,
): Promise<StreamObservation> {
  const stream = client.messages.stream({ model, max_tokens: 256, messages });
  const texts: string[] = [];
  const at: number[] = [];
  const events: string[] = [];
  stream.on("text", (delta) => {
    texts.push(delta);
    at.push(Date.now());
  });
  stream.on("streamEvent", (event) => {
    events.push(event.type === "content_block_delta" ? event.delta.type : event.type);
  });
  const message = await stream.finalMessage();
  return { texts, at, events, message };
}

/** Awaits a call expected to fail with an SDK APIError and returns that error. */
export async function apiErrorOf(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(
    () => new Error("expected the request to fail"),
    (e: unknown) => e,
  );
  if (!(error instanceof APIError)) throw error;
  return error;
}
