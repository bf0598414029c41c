/**
 * Verified remote agents: a registry entry with `requireSignature` is used only while its card
 * carries a valid JWS signature (auth/card-signature.ts), checked before the first call and on
 * every refresh of the card. The key set is the entry's `cardKeysUrl` (pinned: the `jku` the
 * card names is ignored), else the `jku`, which must be on the card's own origin (a key set
 * elsewhere could be anyone's). Key sets are cached as the issuers' are (auth/key-sets.ts: ten
 * minutes, a refetch for an unknown kid at most every 30 seconds, the last set kept when a refetch
 * fails). A set is fetched with the target's fetch (remote/client.ts: the entry's credentials
 * only to its own origin, any other origin through the SSRF guard) and never through a redirect.
 * A card that fails is refused with {@link CardTrustError}, whose message says why (the model and
 * the user read it).
 */
import type { JWK } from "jose";
import { verifyCardSignature } from "../auth/card-signature.ts";
import { KeySetCache } from "../auth/key-sets.ts";
import type { RemoteAgentEntry } from "../config/agent-network.ts";

/** Raised when a registry entry's card fails its signature requirement; says why. */
export class CardTrustError extends Error {
  override readonly name = "CardTrustError";
}

/** The card key sets fetched, by URL. */
const cardKeySets = new KeySetCache();

/** Key `kid` of the set at `url`, which signs the card of the registry entry `agent`. */
const keyFrom = (agent: string, url: string, kid: string, fetchImpl: typeof fetch): Promise<JWK> =>
  cardKeySets.jwk({ url, owner: `${agent}'s card`, fetch: fetchImpl }, kid);

/**
 * Checks the raw card of `entry` (fetched from `cardUrl` with `targetFetch`, which fetches its key
 * set too) when the entry requires a signature; throws {@link CardTrustError} when it is unsigned
 * or fails.
 */
export async function checkCardTrust(
  entry: RemoteAgentEntry | null,
  card: Record<string, unknown>,
  cardUrl: string,
  targetFetch: typeof fetch,
): Promise<void> {
  if (!entry?.requireSignature) return;
  const origin = new URL(cardUrl).origin;
  const result = await verifyCardSignature(card, async (kid, jku) => {
    if (entry.cardKeysUrl)
      return keyFrom(entry.name, new URL(entry.cardKeysUrl).href, kid, targetFetch);
    if (!jku) throw new Error("the signature names no key set (jku)");
    const url = new URL(jku, cardUrl);
    if (url.origin !== origin)
      throw new Error(`its key set ${url.href} is not on the card's origin ${origin}`);
    return keyFrom(entry.name, url.href, kid, targetFetch);
  });
  if (result.status === "unsigned")
    throw new CardTrustError(
      `the agent ${entry.name} must present a signed card (requireSignature) and its card is not signed: refused`,
    );
  if (result.status === "invalid")
    throw new CardTrustError(
      `the agent ${entry.name} must present a signed card (requireSignature) and its signature does not verify (${result.reason.slice(0, 300)}): refused`,
    );
}
