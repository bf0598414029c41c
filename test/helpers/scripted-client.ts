/**
 * Test helpers for the scripted Messages API used in-process (workerd or Node): a real
 * @anthropic-ai/sdk client whose fetch is the handler, and a streaming call that records
 * text deltas, their arrival times, raw event types and the final message.
 */
import { Anthropic, APIError } from "@anthropic-ai/sdk";
import type { Message, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  createScriptedMessagesApi,
  type FetchHandler,
  ScenarioStore,
} from "../../src/model/scripted/messages-api.ts";

/** Base URL the in-process client uses; any host works since nothing leaves the isolate. */
export const SCRIPTED_BASE_URL = "http://scripted.local";

/** A fresh store, its handler and an SDK client wired to it (no retries). */
export function scriptedClient(): {
  store: ScenarioStore;
  handler: FetchHandler;
  client: Anthropic;
} {
  const store = new ScenarioStore();
  const handler = createScriptedMessagesApi({ store });
  const client = new Anthropic({
    apiKey: "x",
    baseURL: SCRIPTED_BASE_URL,
    fetch: (input, init) => handler(new Request(input, init)),
    maxRetries: 0,
  });
  return { store, handler, client };
}

/** A user message with string content. */
export function userMessage(content: string): MessageParam {
  return { role: "user", content };
}

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
  model = "claude-scripted-test",
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
