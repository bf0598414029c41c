/**
 * The key sets of trusted delegation issuers (`TRUSTED_ISSUERS`: issuer -> JWKS URL), fetched
 * through the SSRF guard (redirects refused), each attempt bounded by a timeout and retried with
 * backoff, and cached per isolate for ten minutes. A token signed with a key the cached set lacks
 * (the issuer rotated) refetches the set, at most every 30 seconds. When a refetch fails, the set
 * last fetched stays in use; when there is none, the lookup throws {@link KeySetUnavailable}
 * naming the issuer and why, never a bare network error.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { checkUrl } from "../platform/ssrf.ts";
import { KeySetUnavailable } from "./delegation-token.ts";

/** How long a fetched key set is used before it is fetched again. */
export const KEY_SET_TTL_MS = 10 * 60_000;
/** The shortest time between two fetches of one set for unknown `kid`s. */
export const UNKNOWN_KID_COOLDOWN_MS = 30_000;
const ATTEMPTS = 3;
const ATTEMPT_TIMEOUT_MS = 15_000;
const MAX_BYTES = 256 * 1024;

interface Entry {
  at: number;
  keys: JWTVerifyGetKey;
}

const sets = new Map<string, Entry>();
const inFlight = new Map<string, Promise<Entry>>();
/** When each set was last fetched or tried (the unknown-kid cooldown counts from it). */
const tried = new Map<string, number>();

/** The fetch used for key sets (tests replace it); called unbound-safe. */
let fetcher: typeof fetch = (input, init) => fetch(input, init);

/** Replaces the fetch of key sets and forgets every cached set (tests). */
export function setKeySetFetch(replacement: typeof fetch | null): void {
  fetcher = replacement ?? ((input, init) => fetch(input, init));
  sets.clear();
  inFlight.clear();
  tried.clear();
}

async function fetchOnce(url: string): Promise<JSONWebKeySet> {
  const response = await fetcher(url, {
    headers: { Accept: "application/json" },
    redirect: "manual",
    signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_BYTES) throw new Error("the key set is too large");
  const body = JSON.parse(text) as JSONWebKeySet;
  if (!body || !Array.isArray(body.keys)) throw new Error("not a JWK set (no keys array)");
  return body;
}

async function load(issuer: string, url: string, allowPrivate: boolean): Promise<Entry> {
  const checked = checkUrl(url, { allowPrivate });
  if (!checked.ok)
    throw new KeySetUnavailable(`the key set of ${issuer} (${url}) is refused: ${checked.reason}`);
  tried.set(url, Date.now());
  let reason = "";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    try {
      const jwks = await fetchOnce(checked.url.href);
      const entry = { at: Date.now(), keys: createLocalJWKSet(jwks) };
      sets.set(url, entry);
      return entry;
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  const stale = sets.get(url);
  if (stale) return stale;
  throw new KeySetUnavailable(
    `the key set of ${issuer} could not be fetched from ${url} (${ATTEMPTS} attempts): ${reason.slice(0, 200)}`,
  );
}

/** One fetch of `url` at a time; callers arriving meanwhile share it. */
function loadShared(issuer: string, url: string, allowPrivate: boolean): Promise<Entry> {
  let pending = inFlight.get(url);
  if (!pending) {
    pending = load(issuer, url, allowPrivate).finally(() => inFlight.delete(url));
    inFlight.set(url, pending);
  }
  return pending;
}

/** The key lookup of `issuer`, whose set is at `url`. */
export function issuerKeys(issuer: string, url: string, allowPrivate: boolean): JWTVerifyGetKey {
  return async (header, token) => {
    const cached = sets.get(url);
    let entry =
      cached && Date.now() - cached.at < KEY_SET_TTL_MS
        ? cached
        : await loadShared(issuer, url, allowPrivate);
    try {
      return await entry.keys(header, token);
    } catch (error) {
      const unknownKid = (error as { code?: string }).code === "ERR_JWKS_NO_MATCHING_KEY";
      if (!unknownKid || Date.now() - (tried.get(url) ?? 0) < UNKNOWN_KID_COOLDOWN_MS) throw error;
      entry = await loadShared(issuer, url, allowPrivate);
      return entry.keys(header, token);
    }
  };
}
