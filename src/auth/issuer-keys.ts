/**
 * The key sets of trusted delegation issuers (`TRUSTED_ISSUERS`: issuer -> JWKS URL), fetched
 * through the SSRF guard and cached as key-sets.ts says: ten minutes, a refetch for a rotated key
 * at most every 30 seconds, the last set kept when a refetch fails, and KeySetUnavailable
 * naming the issuer when there is none.
 */
import type { JWTVerifyGetKey } from "jose";
import { KeySetCache } from "./key-sets.ts";

const sets = new KeySetCache();

/** The fetch used for key sets (tests replace it); called unbound-safe. */
let fetcher: typeof fetch = (input, init) => fetch(input, init);

/** Replaces the fetch of key sets and forgets every cached set (tests). */
export function setKeySetFetch(replacement: typeof fetch | null): void {
  fetcher = replacement ?? ((input, init) => fetch(input, init));
  sets.clear();
}

/** The key lookup of `issuer`, whose set is at `url`. */
export function issuerKeys(issuer: string, url: string, allowPrivate: boolean): JWTVerifyGetKey {
  return sets.lookup({
    url,
    owner: issuer,
    allowPrivate,
    fetch: (input, init) => fetcher(input, init),
  });
}
