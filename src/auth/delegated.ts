/**
 * Accepting delegation tokens: a JWT whose `iss` is one of `TRUSTED_ISSUERS` is checked (issuer,
 * signature against the issuer's key set, expiry with 60 s of clock skew, audience = the agent
 * this request calls, claims, then replay: its `jti` is remembered by the principal's user object
 * until it expires) and makes the caller the principal "user U via agent A from issuer I". Its id
 * (`dlg-` and a hash of the three) owns its tasks and keys its limits and budgets. A refusal is a
 * 401 naming the check that failed, never the token; a key set that cannot be fetched is a 503
 * naming the issuer.
 */
import type { Config } from "../config/config.ts";
import { agentUrl } from "../config/public-url.ts";
import { sha256Hex } from "../platform/hex.ts";
import { HttpError } from "../platform/http-error.ts";
import { userCounters } from "../platform/object-names.ts";
import { stubByName } from "../platform/object-stub.ts";
import type { Principal } from "../protocol/app-types.ts";
import {
  DelegationError,
  KeySetUnavailable,
  UNCHECKED_HEADER,
  unverifiedPayload,
  verifyDelegationToken,
} from "./delegation-token.ts";
import { issuerKeys } from "./issuer-keys.ts";
import { looksLikeJwt } from "./jwt.ts";
import { DELEGATED_OWNER_PREFIX } from "./user-ids.ts";

/**
 * The issuer `credential` claims when it is to be checked as a delegation token, else null
 * (unverified: the routing only, and the token is decoded here once for the whole check): a JWT
 * of a trusted issuer, or any JWT with an actor claim that is not the OIDC issuer's (so an
 * untrusted issuer's delegation is refused naming the issuer check, not as an unknown login).
 */
export function delegationIssuer(config: Config, credential: string): string | null {
  if (!looksLikeJwt(credential)) return null;
  const payload = unverifiedPayload(credential);
  const issuer = typeof payload?.iss === "string" ? payload.iss : null;
  if (issuer === null) return null;
  if (Object.hasOwn(config.delegation.trustedIssuers, issuer)) return issuer;
  return payload?.act !== undefined && issuer !== config.oidc?.issuer ? issuer : null;
}

/**
 * The audience a request may carry: the endpoint of the agent its matched route names
 * (`<base>/agents/<name>/`, the name as the router decoded it: platform/route-match.ts), else the
 * deployment's root (`<base>/`, the default agent). `base` is the public base URL
 * (config/public-url.ts).
 */
export function expectedAudience(base: string, agent: string | null): string {
  return agent === null ? `${base}/` : agentUrl(base, agent);
}

/** The owner id of user `user` via agent `agent` from `issuer`. */
export async function delegatedOwner(issuer: string, user: string, agent: string): Promise<string> {
  const hash = await sha256Hex(JSON.stringify([issuer, user, agent]));
  return `${DELEGATED_OWNER_PREFIX}${hash.slice(0, 32)}`;
}

const refused = (error: DelegationError) =>
  new HttpError(401, `Unauthorized: ${error.message}`, {
    headers: {
      "WWW-Authenticate": `Bearer realm="a2a", error="invalid_token", error_description="${error.check} check failed"`,
    },
  });

/**
 * Records the token's id with the principal's user object (false: seen before); a transient
 * failure of the object is retried, and a lasting one is a 503 that says so.
 */
async function firstUse(env: Env, id: string, jti: string, until: number): Promise<boolean> {
  let reason = "";
  const use = crypto.randomUUID();
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await stubByName(env.USERS, userCounters(id)).firstUse(jti, until, use);
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
  throw new HttpError(
    503,
    `Delegation token not checked: the replay store failed (${reason.slice(0, 200)})`,
    {
      headers: { "Retry-After": "2", [UNCHECKED_HEADER]: "replay-store" },
    },
  );
}

/**
 * The principal of a delegation token claiming `issuer` ({@link delegationIssuer}) for `audience`
 * ({@link expectedAudience}), or the 401 (503) that says why not.
 */
export async function delegatedPrincipal(
  env: Env,
  config: Config,
  token: string,
  issuer: string,
  audience: string,
): Promise<Principal> {
  const trusted = config.delegation.trustedIssuers;
  let verified: Awaited<ReturnType<typeof verifyDelegationToken>>;
  try {
    verified = await verifyDelegationToken(token, {
      issuer,
      trusted: new Set(Object.keys(trusted)),
      keys: (issuer) => issuerKeys(issuer, trusted[issuer] ?? "", config.webFetchAllowPrivate),
      audience,
    });
  } catch (error) {
    if (error instanceof DelegationError) throw refused(error);
    if (error instanceof KeySetUnavailable)
      throw new HttpError(503, `Delegation token not checked: ${error.message}`, {
        headers: { "Retry-After": "5", [UNCHECKED_HEADER]: "key-set" },
      });
    throw error;
  }
  const id = await delegatedOwner(verified.issuer, verified.subject, verified.actor.sub);
  const fresh = await firstUse(env, id, verified.jti, (verified.expiresAt + 60) * 1000);
  if (!fresh) throw refused(new DelegationError("replay", "this token was used already"));
  return {
    id,
    role: "user",
    agents: null,
    via: "delegation",
    budget: null,
    delegation: {
      issuer: verified.issuer,
      user: verified.subject,
      agent: verified.actor.sub,
      actor: verified.actor,
      correlationId: verified.correlationId,
      scope: verified.scope,
    },
  };
}

/** "user U via agent A from issuer I", as logs and task metadata show a delegated caller. */
export function describeDelegation(d: NonNullable<Principal["delegation"]>): string {
  return `user ${d.user} via ${d.agent} from ${d.issuer}`;
}
