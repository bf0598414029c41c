/**
 * The `card` command's signature check: verifies the card's JWS signatures (spec 1.0.1 §8.4)
 * with the key its `jku` names, fetched only from the card's own origin (a key set elsewhere
 * could be anyone's), through the harness's verifier (src/a2a/card-signature.ts).
 */
import type { JWK } from "jose";
import { type CardVerification, verifyCardSignature } from "../src/a2a/card-signature.ts";

/** Verifies `card`, fetched from `cardUrl`; `fetchImpl` carries the caller's credentials. */
export async function verifyFetchedCard(
  card: Record<string, unknown>,
  cardUrl: string,
  fetchImpl: typeof fetch,
): Promise<CardVerification> {
  const origin = new URL(cardUrl).origin;
  return verifyCardSignature(card, async (kid, jku) => {
    if (!jku) throw new Error("the signature names no key set (jku)");
    if (new URL(jku, cardUrl).origin !== origin)
      throw new Error(`the key set ${jku} is not on the card's origin ${origin}`);
    const response = await fetchImpl(new URL(jku, cardUrl));
    if (!response.ok) throw new Error(`the key set ${jku} answered HTTP ${response.status}`);
    const { keys } = (await response.json()) as { keys?: JWK[] };
    const key = keys?.find((k) => k.kid === kid);
    if (!key) throw new Error(`no key ${kid} in ${jku}`);
    return key;
  });
}

/** One line for people: what the check found. */
export function describeVerification(result: CardVerification): string {
  switch (result.status) {
    case "unsigned":
      return "signature: none (the card is not signed)";
    case "verified":
      return `signature: verified (${result.alg}, key ${result.kid})`;
    case "invalid":
      return `signature: INVALID (${result.reason})`;
  }
}
