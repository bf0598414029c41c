import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/platform/hex.ts";
import { Blobs, blobKey } from "../../src/workspace/files/blobs.ts";

const enc = (text: string) => new TextEncoder().encode(text);

describe("workspace blobs", () => {
  it("serves what it wrote or read from memory, and null for a blob R2 does not have", async () => {
    const scope = { agent: "assistant", owner: `blob-cache-${crypto.randomUUID()}` };
    const blobs = new Blobs(env.FILES, scope);
    const hash = await sha256Hex(enc("kept"));
    await blobs.put(hash, enc("kept"), "kept");
    await env.FILES.delete(blobKey(scope, hash));
    expect(await blobs.text(hash)).toBe("kept");
    // A new instance (a restarted object) has nothing in memory.
    expect(await new Blobs(env.FILES, scope).text(hash)).toBeNull();

    const read = await sha256Hex(enc("read once"));
    await env.FILES.put(blobKey(scope, read), enc("read once"));
    const reader = new Blobs(env.FILES, scope);
    expect(await reader.text(read)).toBe("read once");
    await env.FILES.delete(blobKey(scope, read));
    expect(await reader.text(read)).toBe("read once");
  });

  it("keeps at most its byte budget, dropping the least recently used first", async () => {
    const scope = { agent: "assistant", owner: `blob-lru-${crypto.randomUUID()}` };
    const blobs = new Blobs(env.FILES, scope);
    const big = (c: string) => c.repeat(900_000); // 0.9 MB each; the budget is 4 MB
    const hashes: string[] = [];
    for (const c of ["a", "b", "c", "d", "e"]) {
      const text = big(c);
      const hash = await sha256Hex(enc(text));
      hashes.push(hash);
      await blobs.put(hash, enc(text), text);
      if (c === "b") expect(await blobs.text(hashes[0] as string)).toBe(big("a")); // a is used again
    }
    for (const hash of hashes) await env.FILES.delete(blobKey(scope, hash));
    // Five blobs of 0.9 MB exceed 4 MB: b, the least recently used, went out; a stayed.
    expect(await blobs.text(hashes[0] as string)).toBe(big("a"));
    expect(await blobs.text(hashes[1] as string)).toBeNull();
    expect(await blobs.text(hashes[4] as string)).toBe(big("e"));
  });
});
