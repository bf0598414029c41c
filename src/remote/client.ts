/**
 * Calling other A2A agents with the official @a2a-js/sdk client, v1.0 and v0.3 alike (the SDK's
 * legacy compatibility picks the transport from the card). A target is a registry entry (trusted:
 * a URL, or a Cloudflare service binding, which Workers on one account must use) or any other
 * URL, which passes the SSRF guard on every request, including the endpoint its card names (so
 * does every origin but its own that an entry's card names). Every request carries the task's
 * W3C `traceparent` (naming the tool call's span it is made from, with the task's `tracestate`),
 * and a request to a registry entry itself a credential: a fresh delegation token where its card
 * takes this deployment's (delegation.ts), else the entry's bearer secret if it has one. Cards
 * are cached per isolate for a minute ({@link CARD_TTL_MS}: a card's new description reaches the
 * prompts that name the agent within it); an entry with `requireSignature` has its card's
 * signature checked on every fetch of it (card-trust.ts).
 */
import type { AgentCard } from "@a2a-js/sdk";
import { type Client, DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import { UNCHECKED_HEADER } from "../auth/delegation-token.ts";
import type { Config } from "../config/config.ts";
import { envNamed } from "../config/env-lookup.ts";
import type { RemoteTarget } from "../loop/contracts.ts";
import { randomHex } from "../platform/hex.ts";
import { checkUrl } from "../platform/ssrf.ts";
import { currentTraceHeaders } from "../trace/current-span.ts";
import { checkCardTrust } from "./card-trust.ts";
import { delegationBearer, type OnBehalf } from "./delegation.ts";
import { sdkClientFactory } from "./sdk-client.ts";

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

/**
 * The fetch every request to `target` goes through; `onBehalf` says whom delegations are for.
 * A registry entry's credential goes only to the entry itself: over its service binding (every
 * request reaches its Worker), or to its own origin; never to another origin its card names, and
 * never through a redirect (a credentialed request does not follow one). A request anywhere else
 * (an ad-hoc target, or another origin an entry's card names) passes the SSRF guard and follows
 * no redirect. A caller's `redirect: "manual"` is kept (key sets: auth/key-sets.ts).
 */
export function targetFetch(
  env: object,
  config: Config,
  target: RemoteTarget,
  traceId: string,
  onBehalf: Promise<OnBehalf> | null = null,
): typeof fetch {
  const entry = target.entry;
  const binding = entry?.service
    ? (envNamed(env, entry.service) as Fetcher | undefined)
    : undefined;
  const secret = entry?.authSecret ? envNamed(env, entry.authSecret) : undefined;
  const ownOrigin = new URL(target.baseUrl).origin;
  const reachesEntry = (url: URL) =>
    entry !== null && (entry.service !== undefined || url.origin === ownOrigin);
  /** The bearer a request to `url` carries: the entry's own, and only to the entry. */
  const bearerFor = async (url: URL): Promise<string | null> => {
    if (!reachesEntry(url)) return null;
    // Only registry agents learn whom a call is for: an ad-hoc URL the model gave gets no token.
    const token =
      onBehalf && !url.pathname.includes("/.well-known/")
        ? await delegationBearer(
            env as Env,
            config,
            cards.get(cardKey(target))?.card ?? null,
            target.baseUrl,
            await onBehalf,
          )
        : null;
    return token ?? (typeof secret === "string" && secret !== "" ? secret : null);
  };
  const send = async (request: Request, body: ArrayBuffer | null): Promise<Response> => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    const trace = currentTraceHeaders();
    headers.set("traceparent", trace.traceparent ?? traceparent(traceId));
    if (trace.tracestate) headers.set("tracestate", trace.tracestate);
    const bearer = await bearerFor(url);
    if (bearer) headers.set("authorization", `Bearer ${bearer}`);
    const follow = bearer === null && reachesEntry(url) && request.redirect === "follow";
    const outgoing = new Request(request.url, {
      method: request.method,
      headers,
      body,
      signal: request.signal,
      redirect: follow ? "follow" : "manual",
    });
    if (entry?.service) {
      if (!binding) throw new Error(`service binding ${entry.service} is not configured`);
      return binding.fetch(outgoing);
    }
    return fetch(outgoing);
  };
  return async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    if (!reachesEntry(new URL(request.url))) {
      const checked = checkUrl(request.url, { allowPrivate: config.webFetchAllowPrivate });
      if (!checked.ok) throw new Error(checked.reason);
    }
    const body = request.body ? await request.arrayBuffer() : null;
    // A target that could not check a delegation token yet (its key set or replay store was
    // unavailable) did nothing with the request: it is sent again, with a fresh token.
    for (let attempt = 1; ; attempt++) {
      const response = await send(request, body);
      if (
        response.status !== 503 ||
        response.headers.get(UNCHECKED_HEADER) === null ||
        attempt >= 3
      )
        return response;
      await response.body?.cancel();
      const wait = Math.min(Number(response.headers.get("Retry-After")) || 1, 5);
      await new Promise((r) => setTimeout(r, wait * 1000));
    }
  };
}

/** How long a card is kept per isolate (by `Date.now()`) before it is read again. */
export const CARD_TTL_MS = 60_000;
const cards = new Map<string, { card: AgentCard; at: number }>();

/**
 * The cache key of a target's card: its URL, and for an entry that requires a signature the key
 * set it is checked with (a card cached unchecked never stands in for a checked one).
 */
const cardKey = (target: RemoteTarget) =>
  target.entry?.requireSignature
    ? `${target.baseUrl} signed ${target.entry.cardKeysUrl ?? "jku"}`
    : target.baseUrl;

/** The target's Agent Card (cached {@link CARD_TTL_MS}; `fresh` skips the cache). */
export async function discoverCard(
  fetchImpl: typeof fetch,
  target: RemoteTarget,
  fresh = false,
): Promise<AgentCard> {
  const key = cardKey(target);
  const hit = cards.get(key);
  if (!fresh && hit && Date.now() - hit.at < CARD_TTL_MS) return hit.card;
  let resolverFetch = fetchImpl;
  if (target.entry?.requireSignature) {
    cards.delete(key);
    const cardUrl = new URL(".well-known/agent-card.json", target.baseUrl.replace(/\/*$/, "/"));
    const response = await fetchImpl(cardUrl, {
      headers: { Accept: "application/json", "A2A-Version": "1.0" },
    });
    if (!response.ok) throw new Error(`its card answered HTTP ${response.status}`);
    const body = await response.text();
    await checkCardTrust(target.entry, JSON.parse(body), cardUrl.href, fetchImpl);
    // The card used is the card checked: the resolver reads that body, not a second fetch.
    resolverFetch = async (input, init) =>
      new URL(input instanceof Request ? input.url : String(input)).href === cardUrl.href
        ? new Response(body, { headers: { "Content-Type": "application/json" } })
        : fetchImpl(input, init);
  }
  const resolver = new DefaultAgentCardResolver({
    fetchImpl: resolverFetch,
    legacyCompat: { enabled: true },
  });
  const card = await resolver.resolve(target.baseUrl);
  cards.set(key, { card, at: Date.now() });
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
