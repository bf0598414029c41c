/**
 * A registry entry's trust stays at its own origin: its credentials (the static `authSecret`, a
 * delegation token minted for its URL) go only to the entry's origin, never to another origin its
 * card names nor through a redirect; its card's key set is fetched without following redirects,
 * and a key set on another origin passes the SSRF guard. The network is a fake `fetch` that
 * follows redirects unless told not to, as the runtime's does, and records what reached where.
 */

import { env } from "cloudflare:workers";
import { type AgentCard, generateAgentCardSignature } from "@a2a-js/sdk";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { RemoteAgentEntry } from "../../src/config/agent-network.ts";
import { loadConfig } from "../../src/config/config.ts";
import type { RemoteTarget } from "../../src/loop/contracts.ts";
import { clientFor, discoverCard, targetFetch } from "../../src/remote/client.ts";

type Seen = { url: string; authorization: string | null; redirect: string };

let signer: { key: CryptoKey; jwk: JWK };

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  signer = { key: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: "k1" } };
});

afterEach(() => vi.restoreAllMocks());

/** The fake network: `routes` by URL; what reached it is in the returned list. */
function network(routes: Record<string, () => Response>): Seen[] {
  const seen: Seen[] = [];
  const answer = async (request: Request): Promise<Response> => {
    seen.push({
      url: request.url,
      authorization: request.headers.get("authorization"),
      redirect: request.redirect,
    });
    const response = routes[request.url]?.() ?? new Response("not here", { status: 404 });
    const location = response.headers.get("location");
    if (location === null || request.redirect !== "follow") return response;
    return answer(new Request(new URL(location, request.url), { headers: request.headers }));
  };
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) =>
    answer(new Request(input as RequestInfo, init)),
  );
  return seen;
}

const unique = () => crypto.randomUUID().slice(0, 8);
const redirectTo = (location: string) => () =>
  new Response(null, { status: 302, headers: { location } });

/** A v1.0 card whose JSON-RPC endpoint is `url`. */
function card(url: string): AgentCard {
  return {
    name: "far",
    description: "A remote agent",
    version: "1.0.0",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: {},
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  } as unknown as AgentCard;
}

/** `card` signed with the test key, its header naming the key set `jku`. */
async function signed(value: AgentCard, jku: string): Promise<unknown> {
  const header = { alg: "ES256", kid: "k1", typ: "JOSE", jku };
  return JSON.parse(JSON.stringify(await generateAgentCardSignature(signer.key, header)(value)));
}

const entryTarget = (entry: RemoteAgentEntry): RemoteTarget => ({
  label: entry.name,
  baseUrl: entry.url ?? "",
  entry,
});

const message = {
  message: { messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "hi" }] },
};

describe("a registry entry's credentials", () => {
  it("go only to the entry's origin, never to another origin its card names", async () => {
    const own = `https://far-${unique()}.test`;
    const other = `https://elsewhere-${unique()}.test`;
    const seen = network({
      [`${own}/agents/x/.well-known/agent-card.json`]: () => Response.json(card(`${other}/a2a`)),
      [`${other}/a2a`]: () => Response.json({ jsonrpc: "2.0", id: 1, result: {} }),
    });
    const target = entryTarget({ name: "far", url: `${own}/agents/x/`, authSecret: "FAR_SECRET" });
    const config = loadConfig(env);
    const fetcher = targetFetch({ ...env, FAR_SECRET: "s3cret" }, config, target, "0".repeat(32));
    const client = await clientFor(fetcher, target);
    await client.sendMessage(message as never).catch(() => undefined);
    expect(seen.find((s) => s.url.startsWith(own))?.authorization).toBe("Bearer s3cret");
    const elsewhere = seen.filter((s) => s.url.startsWith(other));
    expect(elsewhere.length).toBeGreaterThan(0);
    expect(elsewhere.map((s) => s.authorization)).toEqual(elsewhere.map(() => null));
  });

  it("never follow a redirect, not even from the entry's own origin", async () => {
    const own = `https://far-${unique()}.test`;
    const other = `https://elsewhere-${unique()}.test`;
    const seen = network({
      [`${own}/.well-known/agent-card.json`]: redirectTo(`${other}/card.json`),
      [`${other}/card.json`]: () => Response.json(card(`${own}/`)),
    });
    const target = entryTarget({ name: "far", url: `${own}/`, authSecret: "FAR_SECRET" });
    const fetcher = targetFetch(
      { ...env, FAR_SECRET: "s3cret" },
      loadConfig(env),
      target,
      "0".repeat(32),
    );
    await discoverCard(fetcher, target).catch(() => undefined);
    expect(seen.filter((s) => s.authorization !== null).map((s) => s.url)).toEqual([
      `${own}/.well-known/agent-card.json`,
    ]);
  });
});

describe("a registry entry's card key set", () => {
  it("is fetched without following a redirect (the jku cannot lead elsewhere)", async () => {
    const own = `https://far-${unique()}.test`;
    const inside = "http://10.0.0.7/keys.json";
    const value = await signed(card(`${own}/`), `${own}/keys.json`);
    const seen = network({
      [`${own}/.well-known/agent-card.json`]: () => Response.json(value),
      [`${own}/keys.json`]: redirectTo(inside),
      [inside]: () => Response.json({ keys: [signer.jwk] }),
    });
    const target = entryTarget({ name: "far", url: `${own}/`, requireSignature: true });
    const fetcher = targetFetch(env, loadConfig(env), target, "0".repeat(32));
    await expect(discoverCard(fetcher, target)).rejects.toThrow(/does not verify/);
    expect(seen.map((s) => s.url)).not.toContain(inside);
  });

  it("passes the SSRF guard when it is on another origin than the entry's", async () => {
    const own = `https://far-${unique()}.test`;
    const inside = `http://10.0.0.8/keys-${unique()}.json`;
    const value = await signed(card(`${own}/`), inside);
    const seen = network({
      [`${own}/.well-known/agent-card.json`]: () => Response.json(value),
      [inside]: () => Response.json({ keys: [signer.jwk] }),
    });
    const target = entryTarget({
      name: "far",
      url: `${own}/`,
      requireSignature: true,
      cardKeysUrl: inside,
    });
    const strict = { ...loadConfig(env), webFetchAllowPrivate: false };
    const fetcher = targetFetch(env, strict, target, "0".repeat(32));
    await expect(discoverCard(fetcher, target)).rejects.toThrow(/private address/);
    expect(seen.map((s) => s.url)).not.toContain(inside);
  });
});
