/**
 * Serves Agent Cards with HTTP caching (spec 8.6): the v1.0 card to `A2A-Version: 1.0` (and any
 * version newer than we know, so future clients can still discover what we speak), the v0.3 card
 * to `0.3` or no header (spec 3.6.2) and at the v0.2 path; `Cache-Control: public, max-age`, a
 * strong ETag per variant, `Last-Modified` (when this isolate built the card; 304 on a matching
 * `If-None-Match`, else on an `If-Modified-Since` not older) and `Vary: A2A-Version`. With
 * `AGENT_CARD_SIGNING_KEY` set, each card carries a signature (auth/card-signature.ts; the signer
 * is auth/card-signer.ts's, built once per isolate) and the public key is served at
 * /.well-known/jwks.json. Cards are memoized per isolate by agent definition, URL and variant.
 */
import type { Context } from "hono";
import type { AgentDefinition } from "../../agents/identity.ts";
import { JWKS_PATH } from "../../auth/card-signature.ts";
import { cardSigner } from "../../auth/card-signer.ts";
import { loadConfig } from "../../config/config.ts";
import { baseUrl } from "../../config/public-url.ts";
import type { AppEnv } from "../../protocol/app-types.ts";
import { requestedVersion } from "../version.ts";
import { buildAgentCard, buildLegacyAgentCard, cardEtag, etagMatches } from "./card.ts";

/** Which card a request gets. */
export type CardVariant = "1.0" | "0.3";

interface CachedCard {
  card: Record<string, unknown>;
  body: string;
  etag: string;
  /** When the card was built, whole seconds (HTTP dates have no milliseconds). */
  builtAt: number;
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
  const sign = await cardSigner(c.env);
  const key = `${variant} ${endpoint} ${config.modelMode} ${config.allowAnonymous ? 0 : 1} ${config.oidc?.issuer ?? ""} ${sign?.thumbprint ?? ""} ${Object.keys(config.delegation.trustedIssuers).join(",")}`;
  let cache = caches.get(agent);
  if (!cache) {
    cache = new Map();
    caches.set(agent, cache);
  }
  const hit = cache.get(key);
  if (hit) return hit;
  const build = variant === "1.0" ? buildAgentCard : buildLegacyAgentCard;
  const unsigned = build(agent, { endpoint }, config);
  const card = sign ? await sign.sign(unsigned, `${baseUrl(c)}${JWKS_PATH}`) : unsigned;
  const body = JSON.stringify(card);
  const builtAt = Math.floor(Date.now() / 1000) * 1000;
  const entry = { card, body, etag: await cardEtag(body), builtAt };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, entry);
  return entry;
}

/** True when `If-Modified-Since` says the client's copy is at least as new as `builtAt`. */
function notModifiedSince(header: string | undefined, builtAt: number): boolean {
  if (!header) return false;
  const since = Date.parse(header);
  return Number.isFinite(since) && since >= builtAt;
}

/** Answers a card request (200 with the card, or 304); `variant` forces one generation. */
export async function serveCard(
  c: Context<AppEnv>,
  agent: AgentDefinition,
  endpoint: string,
  variant: CardVariant = requestedVersion(c.req.raw) === "0.3" ? "0.3" : "1.0",
): Promise<Response> {
  const { body, etag, builtAt } = await agentCard(c, agent, endpoint, variant);
  const headers = {
    "Cache-Control": `public, max-age=${loadConfig(c.env).cardMaxAgeSeconds}`,
    ETag: etag,
    "Last-Modified": new Date(builtAt).toUTCString(),
    Vary: "A2A-Version",
  };
  const ifNoneMatch = c.req.header("If-None-Match");
  // RFC 9110 §13.1.3: If-Modified-Since counts only without If-None-Match.
  const fresh =
    ifNoneMatch !== undefined
      ? etagMatches(ifNoneMatch, etag)
      : notModifiedSince(c.req.header("If-Modified-Since"), builtAt);
  if (fresh) return c.body(null, 304, headers);
  return c.body(body, 200, { ...headers, "Content-Type": "application/json; charset=utf-8" });
}

/** The public key set the cards' signatures name (`jku`); empty when cards are not signed. */
export async function serveJwks(c: Context<AppEnv>): Promise<Response> {
  const sign = await cardSigner(c.env);
  return c.json({ keys: sign ? [sign.publicJwk] : [] }, 200, {
    "Cache-Control": `public, max-age=${loadConfig(c.env).cardMaxAgeSeconds}`,
  });
}
