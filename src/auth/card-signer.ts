/**
 * The card signer of this deployment: built from the secret AGENT_CARD_SIGNING_KEY once per
 * isolate (again only when the secret changes), or null when it is unset. The same key signs the
 * Agent Cards (a2a/cards/card-route.ts) and the delegation tokens this deployment mints
 * (remote/delegation.ts). Throws SigningKeyError for an unusable key, as cardSignerFrom does.
 */
import { loadConfig } from "../config/config.ts";
import { type CardSigner, cardSignerFrom } from "./card-signature.ts";

let signer: { secret: string | undefined; value: Promise<CardSigner | null> } | null = null;

/** The card signer of this deployment (AGENT_CARD_SIGNING_KEY), built once per isolate. */
export function cardSigner(env: Env): Promise<CardSigner | null> {
  const secret = loadConfig(env).cardSigningKey;
  const cached = signer;
  if (cached && cached.secret === secret) return cached.value;
  const value = cardSignerFrom(secret);
  signer = { secret, value };
  return value;
}
