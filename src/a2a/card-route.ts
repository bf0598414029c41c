/**
 * Serves Agent Cards with HTTP caching (spec 8.6): the v1.0 card to `A2A-Version: 1.0` (and any
 * version newer than we know, so future clients can still discover what we speak), the v0.3 card
 * to `0.3` or no header (spec 3.6.2); `Cache-Control: public, max-age`, a strong ETag per variant
 * (304 on a matching `If-None-Match`) and `Vary: A2A-Version`. Bodies and ETags are memoized per
 * isolate by agent definition, URL and variant.
 */
import type { Context } from "hono";
import type { AgentDefinition } from "../agents/identity.ts";
import { loadConfig } from "../config.ts";
import type { AppEnv } from "./app-types.ts";
import { buildAgentCard, buildLegacyAgentCard, cardEtag, etagMatches } from "./card.ts";
import { requestedVersion } from "./version.ts";

/** Which card a request gets. */
export type CardVariant = "1.0" | "0.3";

interface CachedCard {
  card: Record<string, unknown>;
  body: string;
  etag: string;
}

/** Per agent definition: an uploaded identity is a new definition, so its card is built anew. */
const caches = new WeakMap<AgentDefinition, Map<string, CachedCard>>();
const CACHE_LIMIT = 64;

/** The card for `agent` served at `endpoint`, memoized. */
export async function agentCard(
  c: Context<AppEnv>,
  agent: AgentDefinition,
  endpoint: string,
  variant: CardVariant = "1.0",
): Promise<CachedCard> {
  const config = loadConfig(c.env);
  const key = `${variant} ${endpoint} ${config.modelMode} ${config.allowAnonymous ? 0 : 1} ${config.oidc?.issuer ?? ""}`;
  let cache = caches.get(agent);
  if (!cache) {
    cache = new Map();
    caches.set(agent, cache);
  }
  const hit = cache.get(key);
  if (hit) return hit;
  const build = variant === "1.0" ? buildAgentCard : buildLegacyAgentCard;
  const card = build(agent, { endpoint }, config);
  const body = JSON.stringify(card);
  const entry = { card, body, etag: await cardEtag(body) };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, entry);
  return entry;
}

/** Answers a card request (200 with the card, or 304). */
export async function serveCard(
  c: Context<AppEnv>,
  agent: AgentDefinition,
  endpoint: string,
): Promise<Response> {
  const variant: CardVariant = requestedVersion(c.req.raw) === "0.3" ? "0.3" : "1.0";
  const { body, etag } = await agentCard(c, agent, endpoint, variant);
  const headers = {
    "Cache-Control": `public, max-age=${loadConfig(c.env).cardMaxAgeSeconds}`,
    ETag: etag,
    Vary: "A2A-Version",
  };
  if (etagMatches(c.req.header("If-None-Match") ?? null, etag)) return c.body(null, 304, headers);
  return c.body(body, 200, { ...headers, "Content-Type": "application/json; charset=utf-8" });
}
