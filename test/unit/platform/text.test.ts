/** Bounded text: clipped with a counted ellipsis, and on one line. */
import { describe, expect, it } from "vitest";
import { clip, clipLine } from "../../../src/platform/text.ts";

describe("clip", () => {
  it("keeps text that fits and cuts longer text to the limit, the ellipsis included", () => {
    expect(clip("abcdef", 6)).toBe("abcdef");
    expect(clip("abcdefg", 6)).toBe("abcde…");
    expect(clip("abcdefg", 6)).toHaveLength(6);
  });
});

describe("clipLine", () => {
  it("collapses whitespace runs, trims, then clips", () => {
    expect(clipLine("  one\n\ttwo   three \r\n", 100)).toBe("one two three");
    expect(clipLine("one\n\ntwo three", 8)).toBe("one two…");
    expect(clipLine(" \n ", 10)).toBe("");
  });
});
