/**
 * Which agent the CLI talks to and how: a URL (any A2A agent, v1.0 or v0.3) or the name of an
 * agent of this harness (`<--url>/agents/<name>/`, local dev by default), HTTP with the bearer
 * token that remembers the last status and the last SSE event id (to resume a dropped stream),
 * and an @a2a-js/sdk client that speaks v0.3 to an agent whose card says so. The token goes only
 * to the origin it was given for (that of --url or of the agent URL typed): a card whose
 * interfaces name another origin is talked to without it (and the user is told so).
 */
import { AgentCard } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { sdkClientFactory } from "../src/remote/sdk-client.ts";
import { CliError, type ErrorContext, serverMessage, UsageError } from "./errors.ts";

/** Where the harness runs when `--url` is not given. */
export const DEFAULT_URL = "http://127.0.0.1:8787";

/** The agent the user named. */
export interface Target {
  /** The agent's base URL, with a trailing slash. */
  url: string;
  /** As typed: a name of this harness or a URL. */
  agent: string;
  /** The harness's base URL when `agent` is one of its names; null for a URL. */
  harness: string | null;
}

/** The target for a name or a URL (`.` or `default`: the harness's default agent). */
export function resolveTarget(agent: string, baseUrl: string): Target {
  if (/^https?:\/\//.test(agent))
    return { url: agent.endsWith("/") ? agent : `${agent}/`, agent, harness: null };
  const harness = baseUrl.replace(/\/+$/, "");
  if (agent === "." || agent === "default") return { url: `${harness}/`, agent, harness };
  if (!/^[a-z][a-z0-9-]*$/.test(agent))
    throw new UsageError(`"${agent}" is neither a URL nor an agent name (lower case, digits, -)`);
  return { url: `${harness}/agents/${agent}/`, agent, harness };
}

/** The agent as a command names it: `writer`, `writer --url <harness>`, or its URL. */
export const agentArgs = (target: Target) =>
  target.harness && target.harness !== DEFAULT_URL
    ? `${target.agent} --url ${target.harness}`
    : target.agent;

/** The URL a fetch asks for. */
const urlOf = (input: RequestInfo | URL) =>
  new URL(input instanceof Request ? input.url : input.toString());

/**
 * fetch with the bearer token, sent only to `origin` (Node's fetch drops it, as the Fetch
 * standard says, when a redirect leaves the origin); remembers the last HTTP status, whether the
 * last request carried the token, and the last SSE event id.
 */
export class Http {
  lastStatus: number | undefined;
  lastEventId: string | undefined;
  /** The origin of the last request when it went without the token for being elsewhere. */
  lastWithheldFrom: string | undefined;
  /** The origin the token is for. */
  readonly origin: string;
  readonly #token: string | undefined;

  constructor(token: string | undefined, origin: string) {
    this.#token = token;
    this.origin = origin;
  }

  /** Whether the user gave a token (sent to `origin` only). */
  get hasToken(): boolean {
    return Boolean(this.#token);
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const origin = urlOf(input).origin;
    this.lastWithheldFrom = this.#token && origin !== this.origin ? origin : undefined;
    if (this.#token && origin === this.origin)
      headers.set("Authorization", `Bearer ${this.#token}`);
    const response = await fetch(input, { ...init, headers });
    this.lastStatus = response.status;
    if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream"))
      return response;
    return new Response(response.body.pipeThrough(this.#eventIds()), response);
  };

  /** Passes an SSE body through unchanged, noting the id of each complete event. */
  #eventIds(): TransformStream<Uint8Array, Uint8Array> {
    const decoder = new TextDecoder();
    let buffer = "";
    let pending: string | undefined;
    return new TransformStream({
      transform: (chunk, controller) => {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
          const line = buffer.slice(0, end).replace(/\r$/, "");
          buffer = buffer.slice(end + 1);
          if (line.startsWith("id:")) pending = line.slice(3).trim();
          else if (line === "" && pending !== undefined) {
            this.lastEventId = pending;
            pending = undefined;
          }
        }
        controller.enqueue(chunk);
      },
    });
  }
}

/** How errors about `target` are worded (see errors.ts). */
export const errorContext = (target: Target, http: Http, taskId?: string): ErrorContext => ({
  url: target.url,
  agent: target.agent,
  harness: target.harness !== null,
  ...(taskId ? { taskId } : {}),
  ...(http.lastStatus ? { lastStatus: http.lastStatus } : {}),
  tokenSent: http.hasToken && !http.lastWithheldFrom,
  ...(http.lastWithheldFrom ? { tokenWithheldFrom: http.lastWithheldFrom } : {}),
});

/** The names of the harness's agents, or null if it does not list them. */
async function agentNames(harness: string, http: Http): Promise<string[] | null> {
  try {
    const response = await http.fetch(`${harness}/agents`, {
      headers: { Accept: "application/json" },
    });
    const body = (await response.json()) as { agents?: Array<{ name?: unknown }> };
    return response.ok && Array.isArray(body.agents)
      ? body.agents.map((a) => String(a.name))
      : null;
  } catch {
    return null;
  }
}

/** The agent's card as JSON (v1.0 shape when the agent speaks it), fetched with the token. */
export async function fetchCard(target: Target, http: Http): Promise<Record<string, unknown>> {
  const cardUrl = new URL(".well-known/agent-card.json", target.url);
  const response = await http.fetch(cardUrl, {
    headers: { "A2A-Version": "1.0", Accept: "application/json" },
  });
  if (response.status === 404 && target.harness) {
    const names = await agentNames(target.harness, http);
    if (names)
      throw new CliError(
        `no agent "${target.agent}" at ${target.harness}; its agents: ${names.join(", ")}`,
      );
  }
  if (response.status === 401)
    throw new CliError(
      `the card of ${target.agent} needs a token: pass --token <token> or set A2A_TOKEN`,
    );
  if (!response.ok) {
    // The server's reason (a broken agent file, a rate limit...) says more than the status.
    if (response.status === 404) throw new CliError(`no agent card at ${cardUrl} (HTTP 404)`);
    const said = await serverMessage(response);
    throw new CliError(
      `${target.agent} is not available (HTTP ${response.status})${said ? `: ${said}` : ""}`,
    );
  }
  try {
    return (await response.json()) as Record<string, unknown>;
  } catch {
    throw new CliError(
      `${cardUrl} is not an agent card (not JSON): is ${target.url} an A2A agent?`,
    );
  }
}

/** Whether a card (JSON) is a v0.3 card. */
export const isV03Card = (card: Record<string, unknown>) =>
  !Array.isArray(card.supportedInterfaces) && typeof card.protocolVersion === "string";

/** The origins, other than `origin`, that the card's interfaces (either generation) name. */
export function foreignOrigins(card: Record<string, unknown>, origin: string): string[] {
  const interfaces = [
    ...(Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []),
    ...(Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces : []),
    { url: card.url },
  ] as Array<{ url?: unknown } | null>;
  const origins = new Set<string>();
  for (const i of interfaces) {
    if (typeof i?.url !== "string") continue;
    const found = URL.canParse(i.url) ? new URL(i.url).origin : undefined;
    if (found && found !== origin) origins.add(found);
  }
  return [...origins];
}

/** The warning when the card sends a token-bearing caller elsewhere, or null. */
export function tokenWarning(
  card: Record<string, unknown>,
  http: Http,
  agent: string,
): string | null {
  const elsewhere = foreignOrigins(card, http.origin);
  return http.hasToken && elsewhere.length > 0
    ? `the card of ${agent} points at ${elsewhere.join(", ")}, not ${http.origin}: the token is not sent there`
    : null;
}

/** An SDK client for the agent of `card` (fetched by fetchCard), speaking its version. */
export async function clientFor(
  http: Http,
  card: Record<string, unknown>,
): Promise<{ client: Client; version: "1.0" | "0.3"; card: Record<string, unknown> }> {
  const version = isV03Card(card) ? "0.3" : "1.0";
  const factory = sdkClientFactory({ legacyCompat: version === "0.3", fetchImpl: http.fetch });
  // From the card already fetched (and checked), not a second copy fetched again.
  return { client: await factory.createFromAgentCard(card as unknown as AgentCard), version, card };
}

/** The card in the SDK's v1.0 form, for printing (a v0.3 card is printed as it came). */
export function cardJson(card: Record<string, unknown>): Record<string, unknown> {
  return isV03Card(card)
    ? card
    : (AgentCard.toJSON(AgentCard.fromJSON(card)) as Record<string, unknown>);
}
