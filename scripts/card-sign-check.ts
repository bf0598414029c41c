/**
 * The TCK's Agent Card signature checks (spec 1.0.1 §8.4; a2a-tck CARD-SIGN-001..003), made on a
 * served card of either generation, as a client that trusts nothing but the card and its key set:
 *   CARD-SIGN-003  every signature's protected header names `alg` and `kid`, and its `jku` key
 *                  set holds the key `kid` names;
 *   CARD-SIGN-002  the detached JWS verifies over a payload without `signatures`;
 *   CARD-SIGN-001  that payload is the card's RFC 8785 form (src/auth/jcs.ts, held to the
 *                  a2a-jcs-v01 corpus), and no property of the card holds its default (rule 1:
 *                  no `null`, `""`, `[]`, `{}` or `required: false`; the values of maps such as
 *                  `security` and `schemes`, and free-form `params`/`metadata`, excepted), so
 *                  whether a verifier strips defaults or not, it computes the same bytes.
 * Node only (fetches the key set).
 */
import { base64url, decodeProtectedHeader, flattenedVerify, importJWK, type JWK } from "jose";
import { canonicalJson } from "../src/auth/jcs.ts";
import { isMap, type Json } from "./acts/json.ts";

/** One check's verdict. */
export interface SignCheck {
  id: "CARD-SIGN-001" | "CARD-SIGN-002" | "CARD-SIGN-003";
  passed: boolean;
  detail: string;
}

/** Members whose values are map entries or free-form data: an empty value there means something. */
const FREE = new Set(["security", "schemes", "params", "metadata"]);

/** The paths of properties that hold a default value (spec 1.0.1 §8.4.1 rule 1). */
export function defaultedProperties(value: unknown, path = "$"): string[] {
  if (Array.isArray(value))
    return value.flatMap((item, i) => defaultedProperties(item, `${path}[${i}]`));
  if (!isMap(value)) return [];
  const found: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const at = `${path}.${key}`;
    const empty =
      v === null ||
      v === "" ||
      (Array.isArray(v) && v.length === 0) ||
      (isMap(v) && Object.keys(v).length === 0) ||
      (key === "required" && v === false);
    if (empty) found.push(at);
    else if (!FREE.has(key)) found.push(...defaultedProperties(v, at));
  }
  return found;
}

/** A key set's key `kid`, fetched from `jku`. */
async function keyFrom(jku: string, kid: string): Promise<JWK | null> {
  const response = await fetch(jku);
  if (!response.ok) return null;
  const set = (await response.json()) as { keys?: JWK[] };
  return set.keys?.find((k) => k.kid === kid) ?? null;
}

/** The three checks on `card` (signed or not: an unsigned card fails them, saying so). */
export async function checkCardSignature(card: Json): Promise<SignCheck[]> {
  const signatures = Array.isArray(card.signatures) ? card.signatures.filter(isMap) : [];
  if (signatures.length === 0)
    return (["CARD-SIGN-001", "CARD-SIGN-002", "CARD-SIGN-003"] as const).map((id) => ({
      id,
      passed: false,
      detail: "the card carries no signature",
    }));
  const { signatures: _excluded, ...signed } = card;
  const payload = canonicalJson(signed);
  const defaulted = defaultedProperties(signed);
  const problems = { header: [] as string[], verify: [] as string[] };
  for (const signature of signatures) {
    const header = decodeProtectedHeader({ protected: String(signature.protected) });
    const { alg, kid, jku } = header;
    if (typeof alg !== "string" || typeof kid !== "string" || typeof jku !== "string") {
      problems.header.push(`a protected header lacks alg, kid or jku: ${JSON.stringify(header)}`);
      continue;
    }
    const jwk = await keyFrom(jku, kid);
    if (!jwk) {
      problems.header.push(`the key set at ${jku} has no key ${kid}`);
      continue;
    }
    try {
      await flattenedVerify(
        {
          payload: base64url.encode(new TextEncoder().encode(payload)),
          protected: String(signature.protected),
          signature: String(signature.signature),
        },
        await importJWK(jwk, alg),
      );
    } catch (error) {
      problems.verify.push(`kid ${kid}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const verified = problems.verify.length === 0 && problems.header.length === 0;
  return [
    {
      id: "CARD-SIGN-001",
      passed: verified && defaulted.length === 0,
      detail:
        defaulted.length > 0
          ? `properties holding their default: ${defaulted.join(", ")}`
          : verified
            ? "RFC 8785 payload, no property at its default"
            : "the payload does not verify",
    },
    {
      id: "CARD-SIGN-002",
      passed: verified,
      detail: verified
        ? "verifies without signatures"
        : problems.verify.join("; ") || "not verified",
    },
    {
      id: "CARD-SIGN-003",
      passed: problems.header.length === 0,
      detail: problems.header.join("; ") || "alg and kid, the key found by jku",
    },
  ];
}
