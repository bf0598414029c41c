/** Trusted issuers' key sets: cached, refetched for a rotated key (at most every 30 s), kept when a refetch fails (and not asked again for 30 s), SSRF-guarded. */
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  KeySetUnavailable,
  mintDelegationToken,
  verifyDelegationToken,
} from "../../../src/auth/delegation-token.ts";
import { issuerKeys, setKeySetFetch } from "../../../src/auth/issuer-keys.ts";

const ISSUER = "https://keys.test";
const URL_ = `${ISSUER}/jwks.json`;
const AUDIENCE = "https://callee.test/agents/writer/";
type Key = { kid: string; alg: string; key: CryptoKey; jwk: JWK };
let one: Key;
let two: Key;

async function key(kid: string): Promise<Key> {
  const pair = await generateKeyPair("ES256", { extractable: true });
  return {
    kid,
    alg: "ES256",
    key: pair.privateKey,
    jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: "ES256" },
  };
}

/** Serves `sets()` (the current key set, or an error) and counts fetches. */
function serve(current: () => JWK[] | Error): { calls: () => number } {
  let calls = 0;
  setKeySetFetch(async () => {
    calls += 1;
    const keys = current();
    if (keys instanceof Error) throw keys;
    return Response.json({ keys });
  });
  return { calls: () => calls };
}

const check = async (signer: Key, allowPrivate = false, url = URL_) =>
  verifyDelegationToken(
    await mintDelegationToken(
      signer,
      {
        issuer: ISSUER,
        subject: "alice",
        actor: { sub: "assistant" },
        audience: AUDIENCE,
        correlationId: "c",
        scope: "task",
      },
      5,
    ),
    {
      trusted: new Set([ISSUER]),
      keys: () => issuerKeys(ISSUER, url, allowPrivate),
      audience: AUDIENCE,
    },
  );

beforeAll(async () => {
  one = await key("one");
  two = await key("two");
});

afterEach(() => {
  vi.restoreAllMocks();
  setKeySetFetch(null);
});

describe("issuer key sets", () => {
  it("fetches a set once and serves later checks from the cache", async () => {
    const server = serve(() => [one.jwk]);
    await check(one);
    await check(one);
    expect(server.calls()).toBe(1);
  });

  it("refetches for an unknown kid (a rotation), but at most every 30 seconds", async () => {
    let keys = [one.jwk];
    const server = serve(() => keys);
    await check(one);
    keys = [one.jwk, two.jwk];
    await expect(check(two)).rejects.toMatchObject({ check: "signature" });
    expect(server.calls()).toBe(1);
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + 31_000);
    expect((await check(two)).subject).toBe("alice");
    expect(server.calls()).toBe(2);
  });

  it("keeps the last set when a refetch fails, and names the issuer when there is none", async () => {
    let failing = false;
    const server = serve(() => (failing ? new Error("connection reset") : [one.jwk]));
    await check(one);
    failing = true;
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now + 11 * 60_000);
    expect((await check(one)).subject).toBe("alice");
    expect(server.calls()).toBe(4); // the first fetch, then one failed run of three attempts
    // Within 30 s of the failed run the stale set is served without asking the issuer again.
    clock.mockReturnValue(now + 11 * 60_000 + 20_000);
    expect((await check(one)).subject).toBe("alice");
    expect(server.calls()).toBe(4);
    clock.mockReturnValue(now + 11 * 60_000 + 31_000);
    expect((await check(one)).subject).toBe("alice");
    expect(server.calls()).toBe(7);
    setKeySetFetch(async () => {
      throw new Error("connection reset");
    });
    const error = await check(one).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeySetUnavailable);
    expect(String(error)).toContain(`the key set of ${ISSUER} could not be fetched`);
  });

  it("refuses a key set on a private address unless private addresses are allowed", async () => {
    serve(() => [one.jwk]);
    const error = await check(one, false, "http://127.0.0.1:9/jwks.json").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeySetUnavailable);
    expect(String(error)).toContain("is refused");
    expect((await check(one, true, "http://127.0.0.1:9/jwks.json")).subject).toBe("alice");
  });
});
