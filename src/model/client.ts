/**
 * The Anthropic client for the configured model mode: Claude through the API (key and base URL
 * from config), or the scripted local model in-process when no key is set and SCRIPTED_MODEL
 * allows it. One client per isolate and configuration. SDK retries are off: the task object
 * retries durably with its own backoff. The client carries only the resources the harness calls
 * (messages, models): the SDK's full client brings its beta and admin resources too, about
 * 300 KiB of the Worker's bundle (bench:coldstart). A caller that asks to see its requests
 * (`onRequest`) gets a client of its own whose fetch hands it each request's body, as sent. The
 * scripted model (its zod schemas of scenarios and requests) is loaded only in an isolate whose
 * configuration uses it, not at every isolate's startup.
 */
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";
import { Models } from "@anthropic-ai/sdk/resources/models";
import type { Config } from "../config/config.ts";
import { log } from "../platform/logging.ts";
import { ModelUnavailableError } from "./errors.ts";
import type { FetchHandler } from "./scripted/messages-api.ts";

/** The Messages API client: the SDK's base client with the messages and models resources. */
export class ModelApiClient extends BaseAnthropic {
  readonly messages: Messages = new Messages(this);
  readonly models: Models = new Models(this);
}

/** What a model call needs of a client (the SDK's full `Anthropic` client has it too). */
export type ModelClient = Pick<ModelApiClient, "messages" | "models">;

const clients = new WeakMap<Config, ModelClient>();

/** The model source of a task that runs on the scripted local model (its `metadata.model.source`). */
export const SCRIPTED_MODEL_SOURCE = "scripted-local-model";

/** Human-readable name of the model source, for logs, cards and task metadata. */
export function modelSourceLabel(config: Config): string {
  switch (config.modelMode) {
    case "anthropic":
      return "anthropic";
    case "scripted":
      return SCRIPTED_MODEL_SOURCE;
    case "unconfigured":
      return "unconfigured";
  }
}

/** Hears the body of each request a client sends, exactly as it goes over the wire. */
export type RequestListener = (body: string) => void;

/**
 * The client for `config`; throws {@link ModelUnavailableError} when no model is configured.
 * With `onRequest`, a client of the caller's own that tells it each request body it sends.
 */
export function modelClient(config: Config, onRequest?: RequestListener): ModelClient {
  if (onRequest) return buildClient(config, onRequest);
  const hit = clients.get(config);
  if (hit) return hit;
  const client = buildClient(config);
  clients.set(config, client);
  return client;
}

/** A new client for `config` (see {@link modelClient}). */
function buildClient(config: Config, onRequest?: RequestListener): ModelClient {
  if (config.modelMode === "anthropic") {
    return new ModelApiClient({
      apiKey: config.anthropicApiKey,
      ...(config.anthropicBaseUrl ? { baseURL: config.anthropicBaseUrl } : {}),
      ...(onRequest ? { fetch: heard(onRequest, (input, init) => fetch(input, init)) } : {}),
      maxRetries: 0,
    });
  }
  if (config.modelMode === "scripted") {
    const handler = scriptedHandler(config);
    const send: typeof fetch = async (input, init) => (await handler)(new Request(input, init));
    return new ModelApiClient({
      apiKey: "scripted-local-model",
      baseURL: "http://scripted.local",
      fetch: onRequest ? heard(onRequest, send) : send,
      maxRetries: 0,
    });
  }
  throw new ModelUnavailableError(
    "no model is configured: set the ANTHROPIC_API_KEY secret (or run `npm run dev`, which falls back to the scripted local model)",
  );
}

const scriptedApis = new WeakMap<Config, Promise<FetchHandler>>();

/** The configuration's one scripted Messages API (its clients share its state). */
function scriptedHandler(config: Config): Promise<FetchHandler> {
  const hit = scriptedApis.get(config);
  if (hit) return hit;
  log("warn", "no ANTHROPIC_API_KEY: tasks run on the scripted local model, not Claude");
  const api = import("./scripted/messages-api.ts").then((m) => m.createScriptedMessagesApi());
  scriptedApis.set(config, api);
  return api;
}

/** `send`, telling `onRequest` each request's body first (the SDK sends JSON text). */
function heard(onRequest: RequestListener, send: typeof fetch): typeof fetch {
  return (input, init) => {
    if (typeof init?.body === "string") onRequest(init.body);
    return send(input, init);
  };
}
