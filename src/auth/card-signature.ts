/**
 * Agent Card signatures (spec 1.0.1 §8.4), the same for both card generations: a JWS (flattened,
 * detached: `protected` and `signature`, with `typ: JOSE`, `kid` and a `jku` naming the published
 * key set) over the card's signing payload (jcs.ts: its RFC 8785 canonical form without
 * `signatures`, every served property included). A verifier also takes the form @a2a-js/sdk 1.3.0
 * signs (empty values left out; a v1.0 card through its schema), so the cards of agents built on
 * it verify too. The signing key is the secret `AGENT_CARD_SIGNING_KEY`, a private JWK with `kid`
 * and `alg`; its public half is served as a JWK set. Importable from Node (the CLI verifies with
 * it): no Workers APIs.
 */
import { type AgentCard, canonicalizeAgentCard } from "@a2a-js/sdk";
import {
  base64url,
  type CryptoKey,
  calculateJwkThumbprint,
  decodeProtectedHeader,
  FlattenedSign,
  flattenedVerify,
  importJWK,
  type JWK,
} from "jose";
import { canonicalJson, signingPayload } from "./jcs.ts";

type Json = Record<string, unknown>;

/** Where the public keys are published, under the Worker's origin. */
export const JWKS_PATH = "/.well-known/jwks.json";

/** Signing algorithms accepted for the card key. */
const ALGORITHMS = ["ES256", "ES384", "ES512", "EdDSA", "RS256", "PS256"];
/** JWK members that are private and never published. */
const PRIVATE_MEMBERS = new Set(["d", "p", "q", "dp", "dq", "qi", "k", "oth"]);

/** A card signer: the key's id and algorithm, its public JWK, and the signing itself. */
export interface CardSigner {
  kid: string;
  alg: string;
  publicJwk: JWK;
  /** The public key's JWK thumbprint (RFC 7638): tells keys apart that share a `kid`. */
  thumbprint: string;
  /** The private key (delegation tokens are signed with it too: auth/delegation-token.ts). */
  key: CryptoKey;
  /** The card (either generation) with one signature whose header names `jku`. */
  sign(card: Json, jku: string): Promise<Json>;
}

/** Raised when AGENT_CARD_SIGNING_KEY is unusable; the message says why. */
export class SigningKeyError extends Error {
  override readonly name = "SigningKeyError";
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** Removes empty strings, nulls, empty arrays and empty objects (as the SDK's canonical form). */
function withoutEmpty(value: unknown): unknown {
  if (value === "" || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutEmpty).filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Json)
      .map(([k, v]) => [k, withoutEmpty(v)] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return value;
}

const isV03Card = (card: Json) =>
  !Array.isArray(card.supportedInterfaces) && typeof card.protocolVersion === "string";

/**
 * The payloads a signature of `card` may cover: the card as served (this harness's signer), then
 * the form @a2a-js/sdk 1.3.0 signs, which leaves empty values out (for a v1.0 card, also what its
 * schema does not know): a card verified that way has those members unsigned.
 */
function payloads(card: Json): string[] {
  const own = signingPayload(card);
  const { signatures: _excluded, ...rest } = card;
  let sdk: string;
  try {
    sdk = isV03Card(card)
      ? canonicalJson(withoutEmpty(rest) ?? {})
      : // The SDK reads any JSON through its schema (fromJSON), whatever the static type says.
        canonicalizeAgentCard(rest as unknown as AgentCard);
  } catch {
    return [own];
  }
  return sdk === own ? [own] : [own, sdk];
}

/** Verifies one signature over the first of `payloads` it covers; throws when none. */
async function verifyOne(
  signature: Json,
  payloadsOf: string[],
  key: Awaited<ReturnType<typeof importJWK>>,
): Promise<void> {
  let failure: unknown;
  for (const payload of payloadsOf) {
    try {
      await flattenedVerify(
        {
          payload: base64url.encode(bytes(payload)),
          protected: String(signature.protected),
          signature: String(signature.signature),
        },
        key,
      );
      return;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

/**
 * Builds the signer from the secret's value (a private JWK as JSON), or null when it is unset.
 * Throws SigningKeyError naming what is wrong with it.
 */
export async function cardSignerFrom(secret: string | undefined): Promise<CardSigner | null> {
  if (!secret?.trim()) return null;
  let jwk: JWK;
  try {
    jwk = JSON.parse(secret) as JWK;
  } catch {
    throw new SigningKeyError("AGENT_CARD_SIGNING_KEY: not JSON (expected a private JWK)");
  }
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk))
    throw new SigningKeyError("AGENT_CARD_SIGNING_KEY: expected a private JWK object");
  const { kid, alg } = jwk;
  if (typeof kid !== "string" || kid === "")
    throw new SigningKeyError('AGENT_CARD_SIGNING_KEY: the JWK needs a "kid"');
  if (typeof alg !== "string" || !ALGORITHMS.includes(alg))
    throw new SigningKeyError(
      `AGENT_CARD_SIGNING_KEY: "alg" must be one of ${ALGORITHMS.join(", ")}`,
    );
  if (typeof jwk.d !== "string")
    throw new SigningKeyError('AGENT_CARD_SIGNING_KEY: not a private key (no "d")');
  let key: CryptoKey;
  try {
    key = (await importJWK(jwk, alg)) as CryptoKey;
  } catch (error) {
    throw new SigningKeyError(`AGENT_CARD_SIGNING_KEY: ${String(error)}`);
  }
  const publicJwk = Object.fromEntries(
    Object.entries(jwk).filter(([k]) => !PRIVATE_MEMBERS.has(k) && k !== "key_ops"),
  ) as JWK;
  publicJwk.use = "sig";
  return {
    kid,
    alg,
    publicJwk,
    thumbprint: await calculateJwkThumbprint(publicJwk),
    key,
    async sign(card, jku) {
      const { signatures: _replaced, ...unsigned } = card;
      const jws = await new FlattenedSign(bytes(signingPayload(unsigned)))
        .setProtectedHeader({ alg, kid, typ: "JOSE", jku })
        .sign(key);
      return { ...unsigned, signatures: [{ protected: jws.protected, signature: jws.signature }] };
    },
  };
}

/** What a verification found. */
export type CardVerification =
  | { status: "unsigned" }
  | { status: "verified"; kid: string; alg: string }
  | { status: "invalid"; reason: string };

/**
 * Verifies a card's signatures (either generation) with keys from `keyFor(kid, jku)`; verified
 * when at least one signature checks out.
 */
export async function verifyCardSignature(
  card: Json,
  keyFor: (kid: string, jku: string | undefined) => Promise<JWK>,
): Promise<CardVerification> {
  const signatures = Array.isArray(card.signatures) ? (card.signatures as Json[]) : [];
  if (signatures.length === 0) return { status: "unsigned" };
  let reason = "no signature verified";
  for (const signature of signatures) {
    try {
      const header = decodeProtectedHeader(signature as { protected: string });
      const { kid, alg, jku } = header;
      if (typeof kid !== "string" || typeof alg !== "string" || !header.typ)
        throw new Error("the protected header lacks kid, alg or typ");
      const jwk = await keyFor(kid, typeof jku === "string" ? jku : undefined);
      await verifyOne(signature, payloads(card), await importJWK(jwk, alg));
      return { status: "verified", kid, alg };
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  return { status: "invalid", reason };
}
