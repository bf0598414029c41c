/**
 * Near misses (src/platform/near-miss.ts): one edit is a letter inserted, dropped, changed, or two
 * neighbours swapped; case is ignored, and a name that differs only in case is the nearest.
 */
import { describe, expect, it } from "vitest";
import { editDistance, nearestName } from "../../../src/platform/near-miss.ts";

describe("near misses", () => {
  it("counts an insertion, a deletion, a change and a swap as one edit each", () => {
    expect(editDistance("claude-sonnet-4-6", "claude-sonnet-4-6")).toBe(0);
    expect(editDistance("claude-sonet-4-6", "claude-sonnet-4-6")).toBe(1);
    expect(editDistance("claude-sonnnet-4-6", "claude-sonnet-4-6")).toBe(1);
    expect(editDistance("claude-sonnet-4.6", "claude-sonnet-4-6")).toBe(1);
    expect(editDistance("claude-snonet-4-6", "claude-sonnet-4-6")).toBe(1);
    expect(editDistance("GetTask", "gettask")).toBe(0);
    expect(editDistance("kitten", "sitting")).toBe(3);
    // Past the limit, the limit plus one, whatever the true distance.
    expect(editDistance("a", "abcdefgh", 2)).toBe(3);
  });

  it("finds the one known name within the bound, the case-only miss first, and none for a known name", () => {
    const known = ["SendMessage", "SendStreamingMessage", "GetTask", "CancelTask"];
    expect(nearestName("SendMesage", known, 2)).toBe("SendMessage");
    expect(nearestName("gettask", known, 2)).toBe("GetTask");
    expect(nearestName("GetTask", known, 2)).toBeNull();
    expect(nearestName("Nothing", known, 2)).toBeNull();
    expect(nearestName("x".repeat(500), known, 2)).toBeNull();
  });
});
