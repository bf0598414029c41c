/** Delegation tokens: minting, the checks in order (each failure naming its check), the claims. */
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  type JWTPayload,
  type JWTVerifyGetKey,
  SignJWT,
} from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import {
  actorDepth,
  audienceOf,
  type DelegationClaims,
  DelegationError,
  KeySetUnavailable,
  MAX_ACTOR_DEPTH,
  mintDelegationToken,
  verifyDelegationToken,
} from "../../../src/auth/delegation-token.ts";

const ISSUER = "https://a.example";
const AUDIENCE = "https://b.example/agents/writer/";
let signer: { kid: string; alg: string; key: CryptoKey };
let other: { kid: string; alg: string; key: CryptoKey };
let keys: JWTVerifyGetKey;

const claims = (over: Partial<DelegationClaims> = {}): DelegationClaims => ({
  issuer: ISSUER,
  subject: "alice",
  actor: { sub: "assistant", iss: ISSUER },
  audience: AUDIENCE,
  correlationId: "c0ffee",
  scope: "task",
  ...over,
});

const verify = (token: string, now?: number) =>
  verifyDelegationToken(token, {
    trusted: new Set([ISSUER]),
    keys: () => keys,
    audience: AUDIENCE,
    ...(now === undefined ? {} : { now }),
  });

/** A token for alice at AUDIENCE, signed by the trusted key, with `payload` (and `jti`) as its claims. */
function signed(payload: JWTPayload, jti?: string): Promise<string> {
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(ISSUER)
    .setSubject("alice")
    .setAudience(AUDIENCE)
    .setExpirationTime("5m");
  return (jti ? jwt.setJti(jti) : jwt).sign(signer.key);
}

async function refusal(promise: Promise<unknown>): Promise<DelegationError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DelegationError);
  return error as DelegationError;
}

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  const stranger = await generateKeyPair("ES256", { extractable: true });
  signer = { kid: "k1", alg: "ES256", key: pair.privateKey };
  other = { kid: "k1", alg: "ES256", key: stranger.privateKey };
  keys = createLocalJWKSet({
    keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }],
  });
});

describe("delegation tokens", () => {
  it("takes the issuer a caller read already, and holds the signed iss to it", async () => {
    const token = await mintDelegationToken(signer, claims(), 5);
    const options = { trusted: new Set([ISSUER, "https://c.example"]), keys: () => keys };
    const given = await verifyDelegationToken(token, {
      ...options,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    expect(given.issuer).toBe(ISSUER);
    const error = await refusal(
      verifyDelegationToken(token, { ...options, issuer: "https://c.example", audience: AUDIENCE }),
    );
    expect(error.check).toBe("issuer");
  });

  it("carries iss, sub, act, aud, cid, scope, exp and a jti", async () => {
    const now = Date.now();
    const verified = await verify(await mintDelegationToken(signer, claims(), 5, now), now);
    expect(verified).toMatchObject(claims());
    expect(verified.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(verified.expiresAt).toBe(Math.floor(now / 1000) + 5 * 60);
  });

  it("mints a fresh jti for every request", async () => {
    const [one, two] = await Promise.all([
      mintDelegationToken(signer, claims(), 5).then(verify),
      mintDelegationToken(signer, claims(), 5).then(verify),
    ]);
    expect(one.jti).not.toBe(two.jti);
  });

  it("keeps a nested actor chain", async () => {
    const actor = {
      sub: "researcher",
      iss: "https://b.example",
      act: { sub: "assistant", iss: ISSUER },
    };
    expect((await verify(await mintDelegationToken(signer, claims({ actor }), 5))).actor).toEqual(
      actor,
    );
  });

  it("refuses to mint a chain deeper than the limit", async () => {
    let actor: DelegationClaims["actor"] = { sub: "a0" };
    for (let i = 1; i <= MAX_ACTOR_DEPTH; i++) actor = { sub: `a${i}`, act: actor };
    expect(actorDepth(actor)).toBe(MAX_ACTOR_DEPTH + 1);
    expect((await refusal(mintDelegationToken(signer, claims({ actor }), 5))).check).toBe("claims");
  });

  it("refuses an untrusted issuer first", async () => {
    const token = await mintDelegationToken(other, claims({ issuer: "https://evil.example" }), 5);
    const error = await refusal(verify(token));
    expect(error.check).toBe("issuer");
    expect(error.message).toContain("https://evil.example is not a trusted issuer");
  });

  it("refuses a token without a readable issuer", async () => {
    expect((await refusal(verify("a.b.c"))).check).toBe("issuer");
  });

  it("refuses a signature by another key", async () => {
    const token = await mintDelegationToken(other, claims(), 5);
    expect((await refusal(verify(token))).check).toBe("signature");
  });

  it("refuses a tampered payload", async () => {
    const token = await mintDelegationToken(signer, claims(), 5);
    const [head, , sig] = token.split(".");
    const forged = btoa(JSON.stringify({ iss: ISSUER, sub: "mallory" })).replace(/=+$/, "");
    expect((await refusal(verify(`${head}.${forged}.${sig}`))).check).toBe("signature");
  });

  it("refuses an expired token, with 60 seconds of clock skew", async () => {
    const now = Date.now();
    const token = await mintDelegationToken(signer, claims(), 1, now);
    expect((await verify(token, now + 90_000)).subject).toBe("alice");
    expect((await refusal(verify(token, now + 130_000))).check).toBe("expiry");
  });

  it("accepts a token from a clock up to a minute ahead, not further", async () => {
    const now = Date.now();
    const ahead = await mintDelegationToken(signer, claims(), 5, now + 45_000);
    expect((await verify(ahead, now)).subject).toBe("alice");
    const far = await mintDelegationToken(signer, claims(), 5, now + 5 * 60_000);
    expect((await refusal(verify(far, now))).check).toBe("expiry");
  });

  it("refuses a token for another audience", async () => {
    const token = await mintDelegationToken(
      signer,
      claims({ audience: "https://b.example/agents/researcher/" }),
      5,
    );
    const error = await refusal(verify(token));
    expect(error.check).toBe("audience");
    expect(error.message).not.toContain(token);
  });

  it("compares audiences without a trailing slash, query or fragment", () => {
    expect(audienceOf("https://b.example/agents/writer")).toBe(AUDIENCE);
    expect(audienceOf("https://b.example/agents/writer/?x=1#y")).toBe(AUDIENCE);
    expect(audienceOf("https://b.example")).toBe("https://b.example/");
  });

  it("refuses a token without the delegation claims", async () => {
    const bare = await signed({});
    expect((await refusal(verify(bare))).check).toBe("claims");
  });

  it("refuses an actor claim that is not an object with sub", async () => {
    const bad = await signed({ act: { iss: ISSUER }, cid: "c", scope: "task" }, "j1");
    expect((await refusal(verify(bad))).check).toBe("claims");
  });

  it("refuses a received chain deeper than the limit", async () => {
    let act: Record<string, unknown> = { sub: "a0" };
    for (let i = 1; i <= MAX_ACTOR_DEPTH; i++) act = { sub: `a${i}`, act };
    const deep = await signed({ act, cid: "c", scope: "task" }, "j2");
    expect((await refusal(verify(deep))).check).toBe("claims");
  });

  it("checks the signature before the expiry (a forged expired token is a signature failure)", async () => {
    const token = await mintDelegationToken(other, claims(), 1, Date.now() - 3_600_000);
    expect((await refusal(verify(token))).check).toBe("signature");
  });

  it("passes an unavailable key set through as such, not as a refusal", async () => {
    const token = await mintDelegationToken(signer, claims(), 5);
    const error = await verifyDelegationToken(token, {
      trusted: new Set([ISSUER]),
      keys: () => async () => {
        throw new KeySetUnavailable("the key set of https://a.example could not be fetched");
      },
      audience: AUDIENCE,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeySetUnavailable);
  });
});
