/**
 * RFC 8785 canonical forms and the Agent Card signing payload, on cases of our own (the a2a-tck
 * corpus runs in test/e2e/jcs-vectors.test.ts where it is present): keys by UTF-16 code units,
 * ECMAScript number forms, minimal string escapes, refusals for what has no canonical form, and
 * `signatures` left out of the payload while every other property, empty ones included, stays.
 */
import { describe, expect, it } from "vitest";
import { CanonicalizationError, canonicalJson, signingPayload } from "../../../src/auth/jcs.ts";

describe("RFC 8785 canonical form", () => {
  it("orders keys by UTF-16 code units at every depth, arrays as given", () => {
    expect(
      canonicalJson({ b: [3, { z: 1, a: 2 }], a: { "\u{1F600}": 1, "\uFF01": 2, "": 0 } }),
    ).toBe('{"a":{"":0,"\u{1F600}":1,"\uFF01":2},"b":[3,{"a":2,"z":1}]}');
  });

  it("writes numbers as ECMAScript does", () => {
    expect(canonicalJson([0.000001, 1e-7, 1e21, 1e20, -0, 0.1 + 0.2, 100, 9007199254740991])).toBe(
      "[0.000001,1e-7,1e+21,100000000000000000000,0,0.30000000000000004,100,9007199254740991]",
    );
  });

  it("escapes only quote, backslash and control characters", () => {
    expect(canonicalJson({ s: 'é "q" \\ /\n\t\u0001\u007f\u{1F600}' })).toBe(
      '{"s":"é \\"q\\" \\\\ /\\n\\t\\u0001\u007f\u{1F600}"}',
    );
  });

  it("refuses lone surrogates, non-finite numbers and non-JSON values", () => {
    for (const value of [
      { s: "a\uD800" },
      { "b\uDC00": 1 },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      [() => 1],
      { d: new Date(0) },
      [10n],
    ])
      expect(() => canonicalJson(value)).toThrow(CanonicalizationError);
  });
});

describe("Agent Card signing payload", () => {
  it("leaves out signatures, populated or empty, and keeps everything else", () => {
    const card = {
      name: "A",
      description: "",
      skills: [],
      securityRequirements: [{ schemes: { bearer: {} } }],
      capabilities: { streaming: false },
    };
    const expected =
      '{"capabilities":{"streaming":false},"description":"","name":"A","securityRequirements":[{"schemes":{"bearer":{}}}],"skills":[]}';
    expect(signingPayload(card)).toBe(expected);
    expect(signingPayload({ ...card, signatures: [{ protected: "x", signature: "y" }] })).toBe(
      expected,
    );
    expect(signingPayload({ ...card, signatures: [] })).toBe(expected);
  });
});
