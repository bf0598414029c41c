/**
 * Test helpers for the scripted Messages API used in-process (workerd or Node): a real
 * @anthropic-ai/sdk client whose fetch is the handler, and raw requests to the same handler.
 * Observing the SDK's calls (stream deltas, API errors) is in sdk-calls.ts.
 */
import { Anthropic } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  createScriptedMessagesApi,
  type Scenario,
  ScenarioStore,
} from "../../src/model/scripted/messages-api.ts";

/** Base URL the in-process client uses; any host works since nothing leaves the isolate. */
const SCRIPTED_BASE_URL = "http://scripted.local";

/** The model name the tests ask the scripted Messages API for. */
export const SCRIPTED_MODEL = "claude-scripted-test";

/**
 * A fresh store holding `scenarios`, an SDK client wired to its handler (no retries), and
 * `request`: a raw request to the same handler at `path` (e.g. "/v1/messages").
 */
export function scriptedClient(...scenarios: Scenario[]): {
  store: ScenarioStore;
  request: (path: string, init?: RequestInit) => Promise<Response>;
  client: Anthropic;
} {
  const store = new ScenarioStore();
  for (const scenario of scenarios) store.addScenario(scenario);
  const handler = createScriptedMessagesApi({ store });
  const client = new Anthropic({
    apiKey: "x",
    baseURL: SCRIPTED_BASE_URL,
    fetch: (input, init) => handler(new Request(input, init)),
    maxRetries: 0,
  });
  const request = (path: string, init?: RequestInit) =>
    handler(new Request(`${SCRIPTED_BASE_URL}${path}`, init));
  return { store, request, client };
}

/** A user message with string content. */
export function userMessage(content: string): MessageParam {
  return { role: "user", content };
}
