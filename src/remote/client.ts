/**
 * Calling other A2A agents with the official @a2a-js/sdk client, v1.0 and v0.3 alike (the SDK's
 * legacy compatibility picks the transport from the card). A target is a registry entry (trusted:
 * a URL, or a Cloudflare service binding, which Workers on one account must use) or any other
 * URL, which passes the SSRF guard on every request, including the endpoint its card names.
 * Every request carries the task's W3C `traceparent` (naming the tool call's span it is made
 * from, with the task's `tracestate`), and the entry's bearer secret if it has one. Cards are cached per isolate for five minutes.
 */
import type { AgentCard } from "@a2a-js/sdk";
import { type Client, DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import type { RemoteAgentEntry } from "../config/agent-network.ts";
import type { Config } from "../config/config.ts";
import { envNamed } from "../config/env-lookup.ts";
import { randomHex } from "../platform/hex.ts";
import { checkUrl } from "../platform/ssrf.ts";
import { currentTraceHeaders } from "../trace/current-span.ts";
import { sdkClientFactory } from "./sdk-client.ts";

/** Where a remote agent is and how far it is trusted. */
export interface RemoteTarget {
  /** Registry name, or the URL for an ad-hoc target. */
  label: string;
  /** The agent's base URL (its card is at `.well-known/agent-card.json` below it). */
  baseUrl: string;
  entry: RemoteAgentEntry | null;
}

/** The target for a registry name or an http(s) URL, or why there is none. */
export function resolveTarget(
  config: Config,
  nameOrUrl: string,
): { ok: true; target: RemoteTarget } | { ok: false; error: string } {
  const entry = config.network.agents[nameOrUrl];
  if (entry) {
    const baseUrl = entry.url ?? `https://${entry.name}.service.internal/`;
    return { ok: true, target: { label: entry.name, baseUrl, entry } };
  }
  if (!/^https?:\/\//i.test(nameOrUrl)) {
    const known = Object.keys(config.network.agents);
    return {
      ok: false,
      error: `no remote agent named "${nameOrUrl}"; registry: ${known.join(", ") || "empty"} (or give an http(s) URL)`,
    };
  }
  const checked = checkUrl(nameOrUrl, { allowPrivate: config.webFetchAllowPrivate });
  if (!checked.ok) return { ok: false, error: checked.reason };
  return { ok: true, target: { label: checked.url.href, baseUrl: checked.url.href, entry: null } };
}

/** A W3C traceparent continuing the task's trace with a new span (outside a tool call). */
export function traceparent(traceId: string): string {
  return `00-${traceId}-${randomHex(8)}-01`;
}

/** The fetch every request to `target` goes through. */
export function targetFetch(
  env: object,
  config: Config,
  target: RemoteTarget,
  traceId: string,
): typeof fetch {
  const entry = target.entry;
  const binding = entry?.service
    ? (envNamed(env, entry.service) as Fetcher | undefined)
    : undefined;
  const secret = entry?.authSecret ? envNamed(env, entry.authSecret) : undefined;
  return async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    if (!entry) {
      const checked = checkUrl(request.url, { allowPrivate: config.webFetchAllowPrivate });
      if (!checked.ok) throw new Error(checked.reason);
    }
    const headers = new Headers(request.headers);
    const trace = currentTraceHeaders();
    headers.set("traceparent", trace.traceparent ?? traceparent(traceId));
    if (trace.tracestate) headers.set("tracestate", trace.tracestate);
    if (typeof secret === "string" && secret !== "")
      headers.set("authorization", `Bearer ${secret}`);
    const outgoing = new Request(request, { headers, redirect: entry ? "follow" : "manual" });
    if (entry?.service) {
      if (!binding) throw new Error(`service binding ${entry.service} is not configured`);
      return binding.fetch(outgoing);
    }
    return fetch(outgoing);
  };
}

const CARD_TTL_MS = 5 * 60_000;
const cards = new Map<string, { card: AgentCard; at: number }>();

/** The target's Agent Card (cached five minutes; `fresh` skips the cache). */
export async function discoverCard(
  fetchImpl: typeof fetch,
  target: RemoteTarget,
  fresh = false,
): Promise<AgentCard> {
  const hit = cards.get(target.baseUrl);
  if (!fresh && hit && Date.now() - hit.at < CARD_TTL_MS) return hit.card;
  const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
  const card = await resolver.resolve(target.baseUrl);
  cards.set(target.baseUrl, { card, at: Date.now() });
  return card;
}

/** An SDK client for the target. */
export async function clientFor(fetchImpl: typeof fetch, target: RemoteTarget): Promise<Client> {
  const card = await discoverCard(fetchImpl, target);
  return sdkClientFactory({ fetchImpl, legacyCompat: true }).createFromAgentCard(card);
}

/** A remote failure as one line the model (or an operator) can read. */
export function remoteError(target: RemoteTarget, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `the A2A agent ${target.label} could not be reached or refused the call: ${message.slice(0, 500)}`;
}
