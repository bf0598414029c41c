/** Hex strings of bytes: known SHA-256 vectors for text and bytes, and random ids of the asked length. */
import { describe, expect, it } from "vitest";
import { randomHex, sha256Hex, toHex } from "../../../src/platform/hex.ts";

describe("hex", () => {
  it("writes two lowercase characters a byte", () => {
    expect(toHex(new Uint8Array([0, 1, 15, 16, 171, 255]))).toBe("00010f10abff");
    expect(toHex(new Uint8Array([222, 173]).buffer)).toBe("dead");
  });

  it("hashes text as UTF-8 and bytes as they are", async () => {
    const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    expect(await sha256Hex("abc")).toBe(abc);
    expect(await sha256Hex(new TextEncoder().encode("abc"))).toBe(abc);
    expect(await sha256Hex("")).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });

  it("makes random ids of twice the byte count", () => {
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
    expect(randomHex(16)).not.toBe(randomHex(16));
  });
});
