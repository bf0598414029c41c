/**
 * Delegation tokens: short-lived JWTs a deployment mints for one call to another agent, saying
 * who asks for whom. `iss` = this deployment (PUBLIC_URL), `sub` = the user the work is for,
 * `act` = the calling agent (RFC 8693's actor claim; prior actors nested inside it, at most
 * {@link MAX_ACTOR_DEPTH} deep), `aud` = the target agent's URL, `cid` = the parent task's opaque
 * correlation id, `scope` = `task` (or a skill), `exp` minutes ahead (at most
 * {@link MAX_TOKEN_MINUTES}: a token living longer is refused), a fresh `jti` per request.
 * Verification runs the checks in a fixed order (issuer, signature, expiry, audience, claims;
 * replay is the caller's, with a store) and names the first that fails. Pure but for the key
 * lookup it is given: no clock but `now`, no fetch. Importable from Node.
 */
import {
  type CryptoKey,
  compactVerify,
  decodeJwt,
  type JWTPayload,
  type JWTVerifyGetKey,
  SignJWT,
} from "jose";

/** How deep `act` may nest (the calling agent and seven before it). */
export const MAX_ACTOR_DEPTH = 8;
/** Clocks of two deployments may differ by this much (seconds) on `iat`, `nbf` and `exp`. */
export const CLOCK_SKEW_SECONDS = 60;
/**
 * The longest a token may live (minutes): one valid further ahead is refused (expiry), so a
 * token that leaks is of use for an hour at most, and its `jti` is remembered no longer.
 */
export const MAX_TOKEN_MINUTES = 60;
/**
 * The header of a 503 answering a request whose delegation token could not be checked yet (the
 * request was not acted on: the caller may send it again with a fresh token).
 */
export const UNCHECKED_HEADER = "A2A-Delegation-Unchecked";
/** The scope of a delegation that may run a task. */
export const TASK_SCOPE = "task";

/** One actor of a chain: the agent, the deployment it ran on, and who acted before it. */
export interface Actor {
  sub: string;
  iss?: string;
  act?: Actor;
}

/** What a delegation says. */
export interface DelegationClaims {
  issuer: string;
  /** The user the work is for (an opaque per-conversation id for an anonymous caller). */
  subject: string;
  /** The calling agent, with the chain before it nested. */
  actor: Actor;
  audience: string;
  correlationId: string;
  scope: string;
}

/** A verified token: its claims, id and expiry (epoch seconds). */
export interface VerifiedDelegation extends DelegationClaims {
  jti: string;
  expiresAt: number;
}

/** The checks a token passes, in order; a refusal names the first that failed. */
export type DelegationCheck = "issuer" | "signature" | "expiry" | "audience" | "claims" | "replay";

/** A refused delegation token: `check` names what failed (the token itself is never echoed). */
export class DelegationError extends Error {
  override readonly name = "DelegationError";
  readonly check: DelegationCheck;
  constructor(check: DelegationCheck, detail: string) {
    super(`delegation token refused (${check}): ${detail}`);
    this.check = check;
  }
}

/** The key a deployment signs with. */
export interface DelegationSigner {
  kid: string;
  alg: string;
  key: CryptoKey;
}

/** A URL as audiences compare it: no query or fragment, one trailing slash. */
export function audienceOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname.replace(/\/*$/, "/")}`;
}

/** How many actors a chain holds. */
export function actorDepth(actor: Actor | undefined): number {
  let depth = 0;
  for (let a = actor; a; a = a.act) depth += 1;
  return depth;
}

/** Mints one token (a fresh `jti`), valid `minutes` from `now` (epoch ms). */
export async function mintDelegationToken(
  signer: DelegationSigner,
  claims: DelegationClaims,
  minutes: number,
  now = Date.now(),
): Promise<string> {
  const depth = actorDepth(claims.actor);
  if (depth > MAX_ACTOR_DEPTH)
    throw new DelegationError(
      "claims",
      `the chain is ${depth} agents deep (at most ${MAX_ACTOR_DEPTH})`,
    );
  const iat = Math.floor(now / 1000);
  return new SignJWT({ act: claims.actor, cid: claims.correlationId, scope: claims.scope })
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: "JWT" })
    .setIssuer(claims.issuer)
    .setSubject(claims.subject)
    .setAudience(audienceOf(claims.audience))
    .setIssuedAt(iat)
    .setExpirationTime(iat + Math.max(1, Math.round(minutes * 60)))
    .setJti(crypto.randomUUID())
    .sign(signer.key);
}

/** A token's payload, unverified (to route it and pick the issuer's keys); null when unreadable. */
export function unverifiedPayload(token: string): JWTPayload | null {
  try {
    return decodeJwt(token);
  } catch {
    return null;
  }
}

/** The `iss` a token claims, unverified; null when unreadable. */
export function claimedIssuer(token: string): string | null {
  const iss = unverifiedPayload(token)?.iss;
  return typeof iss === "string" ? iss : null;
}

const text = (value: unknown, max: number) =>
  typeof value === "string" && value !== "" && value.length <= max ? value : null;

/** The actor claim, checked: an object with `sub`, optional `iss`, nested at most 8 deep. */
function actorOf(value: unknown, depth = 1): Actor | null {
  if (depth > MAX_ACTOR_DEPTH || typeof value !== "object" || value === null) return null;
  const raw = value as Record<string, unknown>;
  const sub = text(raw.sub, 256);
  if (!sub) return null;
  const iss = raw.iss === undefined ? undefined : text(raw.iss, 2_000);
  if (iss === null) return null;
  const act = raw.act === undefined ? undefined : actorOf(raw.act, depth + 1);
  if (act === null) return null;
  return { sub, ...(iss ? { iss } : {}), ...(act ? { act } : {}) };
}

/** What {@link verifyDelegationToken} checks against. */
export interface VerifyOptions {
  /**
   * The `iss` the token claims, when the caller read it already ({@link claimedIssuer}): the
   * token is not decoded again; the signed payload must name the same issuer.
   */
  issuer?: string;
  /** The issuers trusted here; the token's `iss` must be one. */
  trusted: ReadonlySet<string>;
  /** The key set of a trusted issuer. */
  keys(issuer: string): JWTVerifyGetKey;
  /** The audience this request may carry (the called agent's URL). */
  audience: string;
  now?: number;
}

/**
 * Verifies a token: issuer, signature, expiry, audience, claims, in that order, throwing
 * {@link DelegationError} at the first failure. A key set that cannot be fetched throws its own
 * error (not a refusal of the token: the caller answers it as unavailable).
 */
export async function verifyDelegationToken(
  token: string,
  options: VerifyOptions,
): Promise<VerifiedDelegation> {
  const issuer = options.issuer ?? claimedIssuer(token);
  if (issuer === null) throw new DelegationError("issuer", "no readable iss claim");
  if (!options.trusted.has(issuer))
    throw new DelegationError("issuer", `${issuer.slice(0, 200)} is not a trusted issuer`);
  let payload: JWTPayload;
  try {
    const verified = await compactVerify(token, options.keys(issuer));
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as JWTPayload;
  } catch (error) {
    if (error instanceof KeySetUnavailable) throw error;
    const code =
      typeof error === "object" &&
      error !== null &&
      "code" in error &&
      typeof error.code === "string"
        ? error.code
        : "invalid";
    throw new DelegationError(
      "signature",
      `does not verify with ${issuer.slice(0, 200)}'s keys (${code})`,
    );
  }
  if (payload.iss !== issuer)
    throw new DelegationError("issuer", "the signed iss is not the issuer the token claims");
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (typeof payload.exp !== "number" || payload.exp + CLOCK_SKEW_SECONDS <= now)
    throw new DelegationError("expiry", "expired");
  const issuedAt = typeof payload.iat === "number" ? Math.min(payload.iat, now) : now;
  if (payload.exp - issuedAt > MAX_TOKEN_MINUTES * 60 + CLOCK_SKEW_SECONDS)
    throw new DelegationError(
      "expiry",
      `valid for too long (a token lives at most ${MAX_TOKEN_MINUTES} minutes)`,
    );
  if (typeof payload.nbf === "number" && payload.nbf - CLOCK_SKEW_SECONDS > now)
    throw new DelegationError("expiry", "not valid yet");
  if (typeof payload.iat === "number" && payload.iat - CLOCK_SKEW_SECONDS > now)
    throw new DelegationError("expiry", "issued in the future");
  const audiences = typeof payload.aud === "string" ? [payload.aud] : (payload.aud ?? []);
  const expected = audienceOf(options.audience);
  if (!audiences.some((aud) => typeof aud === "string" && safeAudience(aud) === expected))
    throw new DelegationError("audience", `not issued for ${expected.slice(0, 200)}`);
  const subject = text(payload.sub, 256);
  const actor = actorOf(payload.act);
  const jti = text(payload.jti, 128);
  const correlationId = text(payload.cid, 128);
  const scope = text(payload.scope, 128);
  if (!subject || !actor || !jti || !correlationId || !scope)
    throw new DelegationError(
      "claims",
      `needs sub, act (at most ${MAX_ACTOR_DEPTH} deep), jti, cid and scope`,
    );
  return {
    issuer,
    subject,
    actor,
    audience: expected,
    correlationId,
    scope,
    jti,
    expiresAt: payload.exp,
  };
}

function safeAudience(aud: string): string | null {
  try {
    return audienceOf(aud);
  } catch {
    return null;
  }
}

/** Raised by a key lookup when the issuer's key set cannot be fetched (not the token's fault). */
export class KeySetUnavailable extends Error {
  override readonly name = "KeySetUnavailable";
}
