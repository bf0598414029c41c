/**
 * Who is calling, for every route but the cards and `/health`: a bearer token of a D1 user, a JWT
 * from the configured OIDC issuer (or Cloudflare Access's `Cf-Access-Jwt-Assertion`), a
 * delegation token of a trusted issuer (delegated.ts: its refusals name the failed check), or one
 * of the deployment's static keys (`ADMIN_API_KEY`: admin, `A2A_API_KEY`: a shared user key).
 * Without credentials the caller is anonymous where `ALLOW_ANONYMOUS` allows it (owner: the
 * anonymous claim, whose data is its conversation's: see anonymous.ts), else 401. An
 * `Authorization` header that is not `Bearer <token>` (Basic, another scheme, a bare string) is a
 * credential that cannot be checked: 401 in every mode, never silently anonymous.
 * Missing credentials (or a header that is not a bearer token) get a 401 that says what to send;
 * a credential sent and refused gets one 401 whatever was wrong with it (unknown, revoked,
 * expired or mistyped: no hint which), so the caller knows to fix the token; failed ones
 * are throttled per guessing address (an IPv6 address by its /64), never per credential
 * (failure-throttle.ts). Before any of that, a state-changing request another site's page made
 * a browser send without an `Authorization` header (so on a cookie, or on nothing) is refused
 * (cross-site.ts). Lookups are cached per isolate for 5 seconds and streams re-check every 5
 * seconds, so a revocation takes effect within 10 seconds everywhere.
 */
import type { Context, MiddlewareHandler } from "hono";
import { loadConfig } from "../config/config.ts";
import { baseUrl } from "../config/public-url.ts";
import { HttpError } from "../platform/http-error.ts";
import { routeAgent } from "../platform/route-match.ts";
import type { AppEnv, Principal } from "../protocol/app-types.ts";
import { crossSiteRefusal } from "./cross-site.ts";
import {
  delegatedPrincipal,
  delegationIssuer,
  describeDelegation,
  expectedAudience,
} from "./delegated.ts";
import { admitAttempt, countingRefusals, failureKeys } from "./failure-throttle.ts";
import { looksLikeJwt, verifyJwt } from "./jwt.ts";
import { ANONYMOUS_PRINCIPAL } from "./principal.ts";
import { sameSecret } from "./secrets.ts";
import { tokenStillStands } from "./token-validity.ts";
import { tokenHash } from "./tokens.ts";
import { ADMIN_KEY_ID, API_KEY_ID } from "./user-ids.ts";
import { principalBySubject, principalByToken } from "./users-store.ts";

/** How long a credential lookup is trusted, and how often an open stream re-checks. */
export const AUTH_CACHE_MS = 5_000;

type Cache = Map<string, { principal: Principal | null; at: number }>;
/** Per env object (one in production; tests vary the configuration per call). */
const caches = new WeakMap<object, Cache>();
function cacheOf(env: Env): Cache {
  let cache = caches.get(env);
  if (!cache) {
    cache = new Map();
    caches.set(env, cache);
  }
  return cache;
}

/** The 401 message for a request without usable credentials. */
export const NO_CREDENTIALS = "Unauthorized: send Authorization: Bearer <token>";
/** The 401 message for a credential that was checked and refused, whatever the reason. */
export const CREDENTIAL_REFUSED =
  "Unauthorized: the token was not accepted (unknown, revoked, expired or mistyped)";

/**
 * The credential a request presents (a bearer token, else Cloudflare Access's JWT), and whether
 * it sent an `Authorization` header that is not a bearer token.
 */
function credentialOf(c: Context<AppEnv>): { credential: string | null; unusable: boolean } {
  const header = (c.req.header("Authorization") ?? "").trim();
  const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  const credential = bearer ?? c.req.header("Cf-Access-Jwt-Assertion") ?? null;
  return { credential, unusable: header !== "" && bearer === undefined };
}

async function resolve(env: Env, credential: string): Promise<Principal | null> {
  const config = loadConfig(env);
  if (config.adminApiKey && (await sameSecret(credential, config.adminApiKey)))
    return { id: ADMIN_KEY_ID, role: "admin", agents: null, via: "key", budget: null };
  if (config.a2aApiKey && (await sameSecret(credential, config.a2aApiKey)))
    return { id: API_KEY_ID, role: "user", agents: null, via: "key", budget: null };
  if (looksLikeJwt(credential)) {
    const verified = await verifyJwt(config, credential);
    return verified ? principalBySubject(env.DB, verified.subject, verified.name) : null;
  }
  if (!credential.startsWith("a2a_")) return null;
  return principalByToken(env.DB, credential);
}

/** The cached lookup of a credential (by its hash), if still fresh. */
function cached(env: Env, key: string): { principal: Principal | null } | undefined {
  const hit = cacheOf(env).get(key);
  return hit && Date.now() - hit.at < AUTH_CACHE_MS ? hit : undefined;
}

/** The principal for a credential, cached for {@link AUTH_CACHE_MS}. */
export async function principalFor(env: Env, credential: string): Promise<Principal | null> {
  const key = await tokenHash(credential);
  const hit = cached(env, key);
  if (hit) return hit.principal;
  const principal = await resolve(env, credential);
  const cache = cacheOf(env);
  if (cache.size > 10_000) cache.clear();
  cache.set(key, { principal, at: Date.now() });
  return principal;
}

/**
 * The principal for a request's credential, throttling failures (AUTH_FAILURES_PER_MINUTE): a
 * credential this isolate knows good passes at once; any other is admitted by its address's
 * counter first (429 past it), and forgotten there once found good.
 */
async function checkedPrincipal(c: Context<AppEnv>, credential: string): Promise<Principal | null> {
  const perMinute = loadConfig(c.env).limits.authFailuresPerMinute;
  if (perMinute === 0) return principalFor(c.env, credential);
  const known = cached(c.env, await tokenHash(credential))?.principal;
  if (known) return known;
  const ip = c.req.header("CF-Connecting-IP") ?? null;
  const attempt = await admitAttempt(c.env, failureKeys(ip), perMinute);
  const principal = await principalFor(c.env, credential);
  if (principal) c.executionCtx.waitUntil(attempt.succeeded().catch(() => {}));
  return principal;
}

/** Forgets cached lookups of these token hashes in this isolate (revocation, erasure). */
export function forgetTokens(env: Env, hashes: readonly string[]): void {
  const cache = cacheOf(env);
  for (const hash of hashes) cache.delete(hash);
}

/**
 * Middleware: sets `principal` and `owner`, or answers 401; a state-changing request from another
 * site without an `Authorization` header gets a 403 first (cross-site.ts).
 */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async function auth(c, next) {
    const crossSite = crossSiteRefusal(c.req.raw, loadConfig(c.env));
    if (crossSite) throw new HttpError(403, crossSite);
    const { credential, unusable } = credentialOf(c);
    const issuer = credential === null ? null : delegationIssuer(loadConfig(c.env), credential);
    let principal: Principal | null;
    if (credential === null) {
      // A caller who sent credentials expects them checked: never anonymous instead.
      principal = !unusable && loadConfig(c.env).allowAnonymous ? ANONYMOUS_PRINCIPAL : null;
    } else if (issuer !== null) {
      // Never cached: every request's token is checked, its replay included.
      const config = loadConfig(c.env);
      const perMinute = config.limits.authFailuresPerMinute;
      const audience = expectedAudience(baseUrl(c), routeAgent(c));
      const check = () => delegatedPrincipal(c.env, config, credential, issuer, audience);
      principal =
        perMinute === 0
          ? await check()
          : await countingRefusals(
              c.env,
              c.req.header("CF-Connecting-IP") ?? null,
              perMinute,
              check,
            );
      if (principal?.delegation) c.set("delegatedBy", describeDelegation(principal.delegation));
    } else {
      principal = await checkedPrincipal(c, credential);
    }
    if (!principal)
      throw new HttpError(401, credential === null ? NO_CREDENTIALS : CREDENTIAL_REFUSED, {
        headers: { "WWW-Authenticate": 'Bearer realm="a2a"' },
      });
    c.set("principal", principal);
    c.set("owner", principal.id);
    c.set("userId", principal.id);
    c.set("authCheck", () => stillAuthorized(c.env, credential, principal));
    await next();
  };
}

/** Middleware: admins only (after {@link authenticate}). */
export function requireAdmin(): MiddlewareHandler<AppEnv> {
  return async function admin(c, next) {
    if (c.get("principal")?.role !== "admin") throw new HttpError(403, "admin only");
    await next();
  };
}

/**
 * Middleware: callers with an account only (after {@link authenticate}). An anonymous caller is
 * one conversation, not an account: account data (usage, privacy export and erasure, schedules)
 * is refused with a 403 that says so, never served from a shared "anonymous" account.
 */
export function requireAccount(): MiddlewareHandler<AppEnv> {
  return async function account(c, next) {
    const via = c.get("principal")?.via;
    if (via === "delegation")
      throw new HttpError(
        403,
        "a delegated caller has no account here: usage, schedules and data are its own deployment's",
      );
    if (via === "anonymous")
      throw new HttpError(
        403,
        "anonymous callers have no account: send Authorization: Bearer <token> for usage, schedules and your data",
      );
    await next();
  };
}

/** Whether the credential a stream was opened with still stands. */
async function stillAuthorized(
  env: Env,
  credential: string | null,
  principal: Principal,
): Promise<boolean> {
  if (credential === null) return loadConfig(env).allowAnonymous;
  // A stream opened with a delegation token lives while its issuer is trusted (each token is
  // single-use: checking it again would find it replayed).
  if (principal.via === "delegation")
    return Object.hasOwn(
      loadConfig(env).delegation.trustedIssuers,
      principal.delegation?.issuer ?? "",
    );
  if (principal.via === "token" && principal.tokenHash) {
    const cache = cacheOf(env);
    const hit = cache.get(principal.tokenHash);
    if (hit && Date.now() - hit.at < AUTH_CACHE_MS) return hit.principal !== null;
    const valid = await tokenStillStands(env.DB, principal.tokenHash);
    if (!valid) cache.set(principal.tokenHash, { principal: null, at: Date.now() });
    return valid;
  }
  return (await principalFor(env, credential)) !== null;
}
