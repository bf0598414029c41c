/**
 * Which agent the CLI talks to and how: a URL (any A2A agent, v1.0 or v0.3) or the name of an
 * agent of this harness (`<--url>/agents/<name>/`, local dev by default), and an @a2a-js/sdk
 * client for it that sends the bearer token and speaks v0.3 to an agent whose card says so.
 */
import { AgentCard } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";

/** Where the harness runs when `--url` is not given. */
export const DEFAULT_URL = "http://127.0.0.1:8787";

/** The agent's base URL (with a trailing slash) for a name or a URL. */
export function agentUrl(agent: string, baseUrl: string): string {
  if (/^https?:\/\//.test(agent)) return agent.endsWith("/") ? agent : `${agent}/`;
  if (agent === "." || agent === "default") return `${baseUrl.replace(/\/+$/, "")}/`;
  if (!/^[a-z][a-z0-9-]*$/.test(agent))
    throw new Error(`"${agent}" is neither a URL nor an agent name`);
  return `${baseUrl.replace(/\/+$/, "")}/agents/${agent}/`;
}

/** fetch with the bearer token, if any. */
export function authorizedFetch(token: string | undefined): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set("Authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The agent's card as JSON (v1.0 shape when the agent speaks it), fetched with the token. */
export async function fetchCard(
  url: string,
  token: string | undefined,
): Promise<Record<string, unknown>> {
  const response = await authorizedFetch(token)(new URL(".well-known/agent-card.json", url), {
    headers: { "A2A-Version": "1.0", Accept: "application/json" },
  });
  if (!response.ok)
    throw new Error(
      `no agent card at ${url} (HTTP ${response.status}${response.status === 401 ? ": send --token" : ""})`,
    );
  return (await response.json()) as Record<string, unknown>;
}

/** Whether a card (JSON) is a v0.3 card. */
export const isV03Card = (card: Record<string, unknown>) =>
  !Array.isArray(card.supportedInterfaces) && typeof card.protocolVersion === "string";

/** An SDK client for the agent at `url`. */
export async function clientFor(
  url: string,
  token: string | undefined,
): Promise<{ client: Client; version: "1.0" | "0.3"; card: Record<string, unknown> }> {
  const card = await fetchCard(url, token);
  const version = isV03Card(card) ? "0.3" : "1.0";
  const legacyCompat = { enabled: version === "0.3" };
  const fetchImpl = authorizedFetch(token);
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ legacyCompat, fetchImpl }),
      new RestTransportFactory({ legacyCompat, fetchImpl }),
    ],
    cardResolver: new DefaultAgentCardResolver({
      legacyCompat,
      // A v0.3 agent is asked without the A2A-Version header, as a v0.3 client would.
      fetchImpl: version === "0.3" ? (input) => fetchImpl(input) : fetchImpl,
    }),
  });
  return { client: await factory.createFromUrl(url), version, card };
}

/** The card in the SDK's v1.0 form, for printing (a v0.3 card is printed as it came). */
export function cardJson(card: Record<string, unknown>): Record<string, unknown> {
  return isV03Card(card)
    ? card
    : (AgentCard.toJSON(AgentCard.fromJSON(card)) as Record<string, unknown>);
}
