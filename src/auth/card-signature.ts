/**
 * Agent Card signatures (spec 1.0.1 §8.4): a JWS (flattened, `typ: JOSE`, with `kid` and a `jku`
 * naming the published key set) over the card's JCS (RFC 8785) canonical form without
 * `signatures`. The v1.0 card is signed and checked with @a2a-js/sdk's helpers
 * (`generateAgentCardSignature`, `verifyAgentCardSignature`, which canonicalize through the v1.0
 * schema); the v0.3 card, which that schema does not describe, is canonicalized the same way
 * (empty values dropped, keys sorted) straight from its JSON. The signing key is the secret
 * `AGENT_CARD_SIGNING_KEY`, a private JWK with `kid` and `alg`; its public half is served as a
 * JWK set. Importable from Node (the CLI verifies with it): no Workers APIs.
 */
import { type AgentCard, generateAgentCardSignature, verifyAgentCardSignature } from "@a2a-js/sdk";
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
  sign(card: Json, variant: "1.0" | "0.3", jku: string): Promise<Json>;
}

/** Raised when AGENT_CARD_SIGNING_KEY is unusable; the message says why. */
export class SigningKeyError extends Error {
  override readonly name = "SigningKeyError";
}

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

/** RFC 8785: keys sorted by UTF-16 code units, ECMAScript number and string forms, no spaces. */
function jcs(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`;
  const record = value as Json;
  const keys = Object.keys(record).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${jcs(record[k])}`).join(",")}}`;
}

/** The canonical payload of a v0.3 card: JCS of its JSON without `signatures` and empty values. */
export function canonicalLegacyCard(card: Json): string {
  const { signatures: _signatures, ...rest } = card;
  return jcs(withoutEmpty(rest) ?? {});
}

const isV03Card = (card: Json) =>
  !Array.isArray(card.supportedInterfaces) && typeof card.protocolVersion === "string";

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
    async sign(card, variant, jku) {
      const header = { alg, kid, typ: "JOSE", jku };
      if (variant === "1.0") {
        const signed = await generateAgentCardSignature(key, header)(card as unknown as AgentCard);
        return JSON.parse(JSON.stringify(signed)) as Json;
      }
      const jws = await new FlattenedSign(new TextEncoder().encode(canonicalLegacyCard(card)))
        .setProtectedHeader(header)
        .sign(key);
      return { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
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
      if (isV03Card(card)) {
        const payload = base64url.encode(new TextEncoder().encode(canonicalLegacyCard(card)));
        await flattenedVerify(
          {
            payload,
            protected: String(signature.protected),
            signature: String(signature.signature),
          },
          await importJWK(jwk, alg),
        );
      } else {
        const one = { ...card, signatures: [signature] } as unknown as AgentCard;
        await verifyAgentCardSignature(async () => importJWK(jwk, alg) as Promise<CryptoKey>)(one);
      }
      return { status: "verified", kid, alg };
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  return { status: "invalid", reason };
}
