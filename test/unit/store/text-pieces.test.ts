/**
 * Cutting a text into pieces for storage: the pieces join back to the text, none is longer than
 * asked, and no cut falls inside a surrogate pair (each piece is well-formed, so SQLite's UTF-8
 * keeps it as it is).
 */
import { describe, expect, it } from "vitest";
import { textPieces } from "../../../src/store/text-pieces.ts";

describe("textPieces", () => {
  it("keeps a short text whole and gives no piece for an empty one", () => {
    expect(textPieces("abc", 3)).toEqual(["abc"]);
    expect(textPieces("", 3)).toEqual([]);
  });

  it("cuts a long text into pieces that join back to it, never inside a surrogate pair", () => {
    const text = "a\u{1F600}".repeat(1000);
    for (const size of [2, 3, 64, 1001]) {
      const pieces = textPieces(text, size);
      expect(pieces.join("")).toBe(text);
      // A well-formed piece survives a round trip through UTF-8.
      const utf8 = (p: string) => new TextDecoder().decode(new TextEncoder().encode(p));
      expect(pieces.every((p) => p.length <= size && utf8(p) === p)).toBe(true);
    }
  });
});
