/**
 * The card's signature check: verifies the card's JWS signatures (spec 1.0.1 §8.4) with the key
 * its `jku` names, fetched only from the card's own origin (a key set elsewhere could be
 * anyone's; a redirect off that origin is not followed), through the harness's verifier
 * (src/auth/card-signature.ts). Then the policy: `--require-signature` refuses an unsigned card,
 * and so does a card this CLI has seen signed before (signed-cards.ts).
 */
import type { JWK } from "jose";
import { type CardVerification, verifyCardSignature } from "../src/auth/card-signature.ts";
import { CliError } from "./errors.ts";
import { pinFilePath, pinOf, recordPin } from "./signed-cards.ts";

/** Redirects followed within the card's origin when fetching the key set. */
const MAX_REDIRECTS = 3;

/** GET the key set at `jku`, following redirects only within `origin`. */
async function fetchKeySet(jku: URL, origin: string, fetchImpl: typeof fetch): Promise<Response> {
  let url = jku;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const response = await fetchImpl(url, {
      redirect: "manual",
      headers: { Accept: "application/json" },
      signal: AbortSignal.timeout(30_000),
    });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    const next = new URL(location, url);
    if (next.origin !== origin)
      throw new Error(
        `the key set ${jku} redirects to ${next.origin}, off the card's origin ${origin}: not followed`,
      );
    url = next;
  }
  throw new Error(`the key set ${jku} redirects more than ${MAX_REDIRECTS} times`);
}

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
    const response = await fetchKeySet(new URL(jku, cardUrl), origin, fetchImpl);
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

/**
 * What the verification means for the command: null when it may go on, else the one line that
 * says why not. A verified card is remembered as signed; an unsigned one fails when
 * `required` or when it was seen signed before; an invalid one always fails.
 */
export function signatureVerdict(
  result: CardVerification,
  cardUrl: string,
  required: boolean,
): string | null {
  if (result.status === "verified") {
    recordPin(cardUrl, { kid: result.kid, alg: result.alg });
    return null;
  }
  if (result.status === "invalid")
    return `the card at ${cardUrl} has an invalid signature (${result.reason})`;
  const pin = pinOf(cardUrl);
  if (pin)
    return `the card at ${cardUrl} is not signed, but was when last verified (key ${pin.kid}, ${pin.seen}): refused; if its owner stopped signing it, remove it from ${pinFilePath()}`;
  return required ? `the card at ${cardUrl} is not signed (--require-signature)` : null;
}

/**
 * Before a command other than `card` talks to the agent: its card is verified when `required`
 * or when this CLI has seen it signed; a CliError says why it is refused.
 */
export async function checkBeforeUse(
  card: Record<string, unknown>,
  cardUrl: string,
  fetchImpl: typeof fetch,
  required: boolean,
): Promise<void> {
  if (!required && pinOf(cardUrl) === undefined) return;
  const verdict = signatureVerdict(
    await verifyFetchedCard(card, cardUrl, fetchImpl),
    cardUrl,
    required,
  );
  if (verdict) throw new CliError(verdict);
}
