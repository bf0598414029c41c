/**
 * The JSON Canonicalization Scheme (RFC 8785) and the Agent Card signing payload built on it
 * (spec 1.0.1 §8.4.1, the same for v0.3 cards): object keys ordered by UTF-16 code units, numbers
 * and strings in their ECMAScript `JSON.stringify` forms, no whitespace; a value with no canonical
 * form (a lone surrogate in a key or a string, NaN or an infinity, anything outside the JSON data
 * model) is refused with a CanonicalizationError rather than approximated. The payload is the card
 * without its `signatures`, as served: the card builders leave out what rule 1 says to leave out
 * (fields holding their default), so nothing is stripped here and every property served is
 * signed. Held to the a2a-tck `a2a-jcs-v01` vector corpus (test/e2e/jcs-vectors.test.ts). Pure.
 */

/** Raised for a value that has no RFC 8785 form; the message says which and where. */
export class CanonicalizationError extends Error {
  override readonly name = "CanonicalizationError";
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string in its canonical form (RFC 8785 §3.2.2.2): `JSON.stringify`'s, once it is Unicode. */
function canonicalString(value: string, where: string): string {
  if (LONE_SURROGATE.test(value))
    throw new CanonicalizationError(`${where}: a lone surrogate is not Unicode text (RFC 8785)`);
  return JSON.stringify(value);
}

function canonical(value: unknown, where: string): string {
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new CanonicalizationError(`${where}: ${value} is not a JSON number (RFC 8785)`);
    // ECMAScript Number::toString (RFC 8785 §3.2.2.3); -0 becomes "0".
    return JSON.stringify(value);
  }
  if (typeof value === "string") return canonicalString(value, where);
  if (Array.isArray(value))
    return `[${value.map((item, i) => canonical(item, `${where}[${i}]`)).join(",")}]`;
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    // String comparison is by UTF-16 code units, which is RFC 8785 §3.2.3's order. A property
    // holding `undefined` is absent, as in JSON.stringify.
    const members = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${canonicalString(k, `${where} key`)}:${canonical(v, `${where}.${k}`)}`);
    return `{${members.join(",")}}`;
  }
  throw new CanonicalizationError(`${where}: a ${typeof value} is not a JSON value`);
}

/** The RFC 8785 canonical form of a JSON value; throws CanonicalizationError where it has none. */
export function canonicalJson(value: unknown): string {
  return canonical(value, "$");
}

/** The bytes an Agent Card's signature covers: the canonical card without `signatures`. */
export function signingPayload(card: Record<string, unknown>): string {
  const { signatures: _excluded, ...signed } = card;
  return canonicalJson(signed);
}
