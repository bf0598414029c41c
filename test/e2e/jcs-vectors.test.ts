/**
 * The Agent Card canonicalizer (src/auth/jcs.ts) against the a2a-tck RFC 8785 vector corpus
 * `a2a-jcs-v01` (57 vectors: 47 to accept, 10 to refuse), read as data from A2A_JCS_VECTORS_DIR or
 * the copy kept in the repository (test/fixtures/a2a-jcs-v01). The corpus is checked first: every file's
 * sha256 against MANIFEST.json, and the manifest against its pinned digest. An accept vector's
 * input canonicalizes to its expected bytes (the signatures-exclusion group's through the signing
 * payload); a refuse vector is refused, by the JSON parser (NaN, Infinity) or the canonicalizer
 * (lone surrogates), or (signatures exclusion) is never a signing payload. `npm test` and `npm run
 * tck` run it. Node only (reads files).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JCS_VECTORS, jcsVectorsDir } from "../../scripts/tck-kit.ts";
import { canonicalJson, signingPayload } from "../../src/auth/jcs.ts";
import { ROOT } from "./processes.ts";

/** One vector file. */
interface Vector {
  id: string;
  clause: string;
  disposition: "MUST-ACCEPT" | "MUST-REJECT";
  input?: Record<string, unknown>;
  expected?: { canonical_utf8_hex: string };
  input_raw?: string;
}

/** The manifest: every vector file with its sha256, and the digest of the manifest itself. */
interface Manifest {
  vectors: Array<{ path: string; sha256: string }>;
  corpusDigest: string;
}

/** The clause of the group that is not pure RFC 8785: `signatures` left out of the payload. */
const EXCLUSION = "a2a-spec-8.4.1-rule-3";

const dir = jcsVectorsDir(ROOT);
const present = existsSync(join(dir, "MANIFEST.json"));
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

function load(): { manifest: Manifest; vectors: Vector[] } {
  if (!present) return { manifest: { vectors: [], corpusDigest: "" }, vectors: [] };
  const manifest = JSON.parse(readFileSync(join(dir, "MANIFEST.json"), "utf8")) as Manifest;
  const vectors = manifest.vectors.map(
    (entry) => JSON.parse(readFileSync(join(dir, entry.path), "utf8")) as Vector,
  );
  return { manifest, vectors };
}

const { manifest, vectors } = load();
const hex = (text: string) => Buffer.from(text, "utf8").toString("hex");

/** What the implementation does with a vector to refuse: how it refused, or null if it did not. */
function refusal(vector: Vector): string | null {
  const raw = vector.input_raw ?? "";
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return "the JSON parser refused it";
  }
  if (vector.clause === EXCLUSION) {
    // A canonical form still holding `signatures` is never what a signature covers.
    const payload = signingPayload(parsed);
    return payload !== raw && !("signatures" in JSON.parse(payload)) ? "not a payload" : null;
  }
  try {
    canonicalJson(parsed);
    return null;
  } catch (error) {
    return error instanceof Error ? error.name : "refused";
  }
}

describe(`a2a-jcs-v01 (${dir})`, () => {
  it("is the pinned corpus: every file as the manifest lists it, the manifest as pinned", () => {
    const { corpusDigest, ...body } = manifest;
    expect(sha256(JSON.stringify(body, null, 2))).toBe(corpusDigest);
    expect(corpusDigest).toBe(JCS_VECTORS.corpusDigest);
    for (const entry of manifest.vectors)
      expect(sha256(readFileSync(join(dir, entry.path))), entry.path).toBe(entry.sha256);
    expect(vectors).toHaveLength(57);
  });

  it.each(vectors.filter((v) => v.disposition === "MUST-ACCEPT").map((v) => [v.id, v] as const))(
    "accepts %s",
    (_id, vector) => {
      const input = vector.input ?? {};
      const canonical = vector.clause === EXCLUSION ? signingPayload(input) : canonicalJson(input);
      expect(hex(canonical)).toBe(vector.expected?.canonical_utf8_hex);
    },
  );

  it.each(vectors.filter((v) => v.disposition === "MUST-REJECT").map((v) => [v.id, v] as const))(
    "refuses %s",
    (_id, vector) => {
      expect(refusal(vector)).not.toBeNull();
    },
  );
});
