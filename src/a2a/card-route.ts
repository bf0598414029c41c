/**
 * Serves Agent Cards with HTTP caching (spec 8.6): `Cache-Control: public, max-age`, a strong
 * ETag of the body (304 on a matching `If-None-Match`) and `Vary: A2A-Version`. Bodies and
 * ETags are memoized per isolate by agent and URL.
 */
import type { Context } from "hono";
import type { AgentDefinition } from "../agents/identity.ts";
import { loadConfig } from "../config.ts";
import type { AppEnv } from "./app-types.ts";
import { buildAgentCard, cardEtag, etagMatches } from "./card.ts";

interface CachedCard {
  card: Record<string, unknown>;
  body: string;
  etag: string;
}

const cache = new Map<string, CachedCard>();
const CACHE_LIMIT = 256;

/** The card for `agent` served at `endpoint`, memoized. */
export async function agentCard(
  c: Context<AppEnv>,
  agent: AgentDefinition,
  endpoint: string,
): Promise<CachedCard> {
  const config = loadConfig(c.env);
  const key = `${agent.name} ${agent.version} ${endpoint} ${config.modelMode} ${config.a2aApiKey ? 1 : 0}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const card = buildAgentCard(agent, { endpoint }, config);
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
  const { body, etag } = await agentCard(c, agent, endpoint);
  const headers = {
    "Cache-Control": `public, max-age=${loadConfig(c.env).cardMaxAgeSeconds}`,
    ETag: etag,
    Vary: "A2A-Version",
  };
  if (etagMatches(c.req.header("If-None-Match") ?? null, etag)) return c.body(null, 304, headers);
  return c.body(body, 200, { ...headers, "Content-Type": "application/json; charset=utf-8" });
}
