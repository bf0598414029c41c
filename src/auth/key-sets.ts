/**
 * Remote JWK sets, cached per isolate: each fetched with the fetch its user gives (redirects
 * refused, through the SSRF guard when asked), each attempt bounded by a timeout and retried with
 * backoff, and used for ten minutes. A key the cached set lacks (its owner rotated) refetches the
 * set, at most every 30 seconds. When a refetch fails, the set last fetched stays in use, and is
 * served without asking again for those 30 seconds (an owner that is down costs one retry run per
 * half minute, not one per token); when there is none, the lookup throws {@link KeySetUnavailable} naming the set's owner and why, never
 * a bare network error. One {@link KeySetCache} per use (issuer keys, card keys), so a set fetched
 * for one is never served to the other.
 *
 * jose's `createRemoteJWKSet` (6.x) was read and is not used, because it cannot keep this: once
 * its set is older than `cacheMaxAge` its lookup awaits a refetch and throws that refetch's error,
 * so a set its owner cannot serve right now is not used (no stale-set fallback); its unknown-kid
 * cooldown counts from the last fetch that succeeded, so an owner that is down is asked again for
 * every token with an unknown kid; and it only hands out a CryptoKey for a JWS header, where card
 * signatures ask for a JWK by its kid.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from "jose";
import { checkUrl } from "../platform/ssrf.ts";
import { KeySetUnavailable } from "./delegation-token.ts";

/** How long a fetched key set is used before it is fetched again. */
export const KEY_SET_TTL_MS = 10 * 60_000;
/** The shortest time between two fetches of one set for unknown `kid`s. */
export const UNKNOWN_KID_COOLDOWN_MS = 30_000;
const ATTEMPTS = 3;
const ATTEMPT_TIMEOUT_MS = 15_000;
const MAX_BYTES = 256 * 1024;
/** The most sets one cache keeps (a card's `jku` is the remote's to choose). */
const MAX_SETS = 256;
/** jose's code for a lookup that found no key for the header. */
const NO_MATCHING_KEY = "ERR_JWKS_NO_MATCHING_KEY";

/** A key set: where it is, whose it is, how it is fetched. */
export interface KeySetSource {
  url: string;
  /** Whose set it is, as errors name it ("the key set of <owner>"). */
  owner: string;
  fetch: typeof fetch;
  /** The SSRF guard's setting (WEB_FETCH_ALLOW_PRIVATE); no guard when absent. */
  allowPrivate?: boolean;
}

interface Entry {
  at: number;
  jwks: JSONWebKeySet;
  keys: JWTVerifyGetKey;
}

async function fetchOnce(source: KeySetSource, url: string): Promise<JSONWebKeySet> {
  const response = await source.fetch(url, {
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

/** Key sets by URL, for one use. */
export class KeySetCache {
  readonly #sets = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Promise<Entry>>();
  /** When each set was last fetched or tried (the unknown-kid cooldown counts from it). */
  readonly #tried = new Map<string, number>();

  /** Forgets every set (tests). */
  clear(): void {
    this.#sets.clear();
    this.#inFlight.clear();
    this.#tried.clear();
  }

  /** The key lookup of the set at `source`, as jose's verify functions take it. */
  lookup(source: KeySetSource): JWTVerifyGetKey {
    return async (header, token) => {
      const entry = await this.#current(source);
      try {
        return await entry.keys(header, token);
      } catch (error) {
        const code = typeof error === "object" && error !== null && "code" in error && error.code;
        if (code !== NO_MATCHING_KEY) throw error;
        const again = await this.#refetched(source);
        if (!again) throw error;
        return again.keys(header, token);
      }
    };
  }

  /** The key `kid` of the set at `source`; throws naming the set when it has none. */
  async jwk(source: KeySetSource, kid: string): Promise<JWK> {
    const find = (entry: Entry | null) => entry?.jwks.keys.find((key) => key.kid === kid);
    const key = find(await this.#current(source)) ?? find(await this.#refetched(source));
    if (!key) throw new Error(`no key ${kid} in ${source.url}`);
    return key;
  }

  /**
   * The cached set while it is fresh, or while a refetch was tried within the cooldown (it failed:
   * the set is stale); else a fetch (the stale set when that fails).
   */
  #current(source: KeySetSource): Promise<Entry> {
    const cached = this.#sets.get(source.url);
    const now = Date.now();
    if (
      cached &&
      (now - cached.at < KEY_SET_TTL_MS ||
        now - (this.#tried.get(source.url) ?? 0) < UNKNOWN_KID_COOLDOWN_MS)
    )
      return Promise.resolve(cached);
    return this.#loadShared(source);
  }

  /** The set fetched again for a key it lacks; null within the cooldown. */
  async #refetched(source: KeySetSource): Promise<Entry | null> {
    if (Date.now() - (this.#tried.get(source.url) ?? 0) < UNKNOWN_KID_COOLDOWN_MS) return null;
    return this.#loadShared(source);
  }

  /** One fetch of a URL at a time; callers arriving meanwhile share it. */
  #loadShared(source: KeySetSource): Promise<Entry> {
    let pending = this.#inFlight.get(source.url);
    if (!pending) {
      pending = this.#load(source).finally(() => this.#inFlight.delete(source.url));
      this.#inFlight.set(source.url, pending);
    }
    return pending;
  }

  async #load(source: KeySetSource): Promise<Entry> {
    const { url, owner } = source;
    let target = url;
    if (source.allowPrivate !== undefined) {
      const checked = checkUrl(url, { allowPrivate: source.allowPrivate });
      if (!checked.ok)
        throw new KeySetUnavailable(
          `the key set of ${owner} (${url}) is refused: ${checked.reason}`,
        );
      target = checked.url.href;
    }
    if (this.#tried.size >= MAX_SETS && !this.#tried.has(url)) {
      this.#tried.clear();
      this.#sets.clear();
    }
    this.#tried.set(url, Date.now());
    let reason = "";
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      try {
        const jwks = await fetchOnce(source, target);
        const entry = { at: Date.now(), jwks, keys: createLocalJWKSet(jwks) };
        this.#sets.set(url, entry);
        return entry;
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
    }
    const stale = this.#sets.get(url);
    if (stale) return stale;
    throw new KeySetUnavailable(
      `the key set of ${owner} could not be fetched from ${url} (${ATTEMPTS} attempts): ${reason.slice(0, 200)}`,
    );
  }
}
