/**
 * A registry entry's pinned card key set is cached as the issuers' key sets are: fetched once for
 * many checks, fetched again for a card signed with a key it lacks (at most every 30 s), and kept
 * when a refetch fails.
 */
import { type AgentCard, generateAgentCardSignature } from "@a2a-js/sdk";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { RemoteAgentEntry } from "../../../src/config/agent-network.ts";
import { CardTrustError, checkCardTrust } from "../../../src/remote/card-trust.ts";

const ORIGIN = "https://far.test";
const CARD_URL = `${ORIGIN}/.well-known/agent-card.json`;
type Key = { kid: string; key: CryptoKey; jwk: JWK };
let one: Key;
let two: Key;

async function key(kid: string): Promise<Key> {
  const pair = await generateKeyPair("ES256", { extractable: true });
  return { kid, key: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid } };
}

/** The far agent's card, signed by `signer`. */
async function signedCard(signer: Key): Promise<Record<string, unknown>> {
  const card = {
    name: "far",
    description: "A remote agent",
    version: "1.0.0",
    supportedInterfaces: [
      { url: `${ORIGIN}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    ],
    capabilities: {},
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  } as unknown as AgentCard;
  const header = { alg: "ES256", kid: signer.kid, typ: "JOSE" };
  const signed = await generateAgentCardSignature(signer.key, header)(card);
  return JSON.parse(JSON.stringify(signed)) as Record<string, unknown>;
}

/** An entry whose pinned key set (its own URL: its own cache entry) `serve` answers. */
function pinned(serve: () => JWK[] | Error): {
  entry: RemoteAgentEntry;
  targetFetch: typeof fetch;
  calls: () => number;
} {
  const url = `${ORIGIN}/keys-${crypto.randomUUID()}.json`;
  let calls = 0;
  const targetFetch: typeof fetch = async (input) => {
    if (String(input) !== url) return new Response("no", { status: 404 });
    calls += 1;
    const keys = serve();
    if (keys instanceof Error) throw keys;
    return Response.json({ keys });
  };
  const entry = { name: "far", url: `${ORIGIN}/`, requireSignature: true, cardKeysUrl: url };
  return { entry, targetFetch, calls: () => calls };
}

beforeAll(async () => {
  one = await key("one");
  two = await key("two");
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("card trust's pinned key sets", () => {
  it("fetches a pinned set once for many checks", async () => {
    const { entry, targetFetch, calls } = pinned(() => [one.jwk]);
    const card = await signedCard(one);
    for (let i = 0; i < 3; i++) await checkCardTrust(entry, card, CARD_URL, targetFetch);
    expect(calls()).toBe(1);
  });

  it("fetches it again for a card signed with a key it lacks, at most every 30 seconds", async () => {
    let keys = [one.jwk];
    const { entry, targetFetch, calls } = pinned(() => keys);
    await checkCardTrust(entry, await signedCard(one), CARD_URL, targetFetch);
    keys = [one.jwk, two.jwk];
    const rotated = await signedCard(two);
    await expect(checkCardTrust(entry, rotated, CARD_URL, targetFetch)).rejects.toBeInstanceOf(
      CardTrustError,
    );
    expect(calls()).toBe(1);
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + 31_000);
    await checkCardTrust(entry, rotated, CARD_URL, targetFetch);
    expect(calls()).toBe(2);
  });

  it("keeps the last set when a refetch fails", async () => {
    let down = false;
    const { entry, targetFetch } = pinned(() => (down ? new Error("connection reset") : [one.jwk]));
    const card = await signedCard(one);
    await checkCardTrust(entry, card, CARD_URL, targetFetch);
    down = true;
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + 11 * 60_000);
    await checkCardTrust(entry, card, CARD_URL, targetFetch);
  });
});
