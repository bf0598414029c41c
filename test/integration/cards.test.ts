import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { verifyCardSignature } from "../../src/auth/card-signature.ts";
import worker from "../../src/worker.ts";
import { fetchWorker } from "../helpers/a2a.ts";
import { SERVED_AGENTS } from "../helpers/agent-set.ts";
import { v03CardTransports } from "../helpers/cards.ts";

const V1 = { headers: { "A2A-Version": "1.0" } };

async function fetchWith(
  vars: Record<string, string>,
  path: string,
  init: RequestInit = V1,
): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(`http://harness.test${path}`, init),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

/** A fresh ES256 signing key as the secret AGENT_CARD_SIGNING_KEY holds it. */
async function signingKey(kid: string): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: "ES256" });
}

describe("agent cards and pinned URLs", () => {
  it("serves the default agent's card at the well-known path with its root endpoint", async () => {
    const response = await fetchWorker("/.well-known/agent-card.json", V1);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const card = (await response.json()) as Record<string, unknown>;
    expect(card.name).toBe("assistant");
    expect(card.supportedInterfaces).toEqual([
      { url: "http://harness.test/", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://harness.test", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "http://harness.test/", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: "http://harness.test", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
    ]);
    expect((card.skills as unknown[]).length).toBeGreaterThan(0);
  });

  it("serves every agent's card under its base URL, with caching headers", async () => {
    for (const name of SERVED_AGENTS) {
      const response = await fetchWorker(`/agents/${name}/.well-known/agent-card.json`, V1);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=300");
      expect(response.headers.get("vary")).toBe("A2A-Version");
      expect(response.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
      const card = (await response.json()) as {
        name: string;
        supportedInterfaces: Array<{ url: string }>;
      };
      expect(card.name).toBe(name);
      expect(card.supportedInterfaces[0]?.url).toBe(`http://harness.test/agents/${name}/`);
    }
  });

  it("serves the v0.3 card without a header or with 0.3, and the v1.0 card to newer versions", async () => {
    for (const init of [
      {},
      { headers: { "A2A-Version": "0.3" } },
      { headers: { "A2A-Version": "" } },
    ]) {
      const card = (await (
        await fetchWorker("/agents/writer/.well-known/agent-card.json", init)
      ).json()) as Record<string, unknown>;
      expect(card).toMatchObject({
        ...v03CardTransports("http://harness.test/agents/writer/"),
        name: "writer",
        capabilities: { streaming: true, pushNotifications: true },
      });
      expect(card).not.toHaveProperty("supportedInterfaces");
    }
    const future = (await (
      await fetchWorker("/agents/writer/.well-known/agent-card.json", {
        headers: { "A2A-Version": "1.1" },
      })
    ).json()) as Record<string, unknown>;
    expect(future).toHaveProperty("supportedInterfaces");
  });

  it("gives each variant its own ETag", async () => {
    const v03 = await fetchWorker("/agents/writer/.well-known/agent-card.json");
    const v1 = await fetchWorker("/agents/writer/.well-known/agent-card.json", V1);
    const [e03, e1] = [v03.headers.get("etag"), v1.headers.get("etag")];
    expect(e03).not.toBe(e1);
    const crossed = await fetchWorker("/agents/writer/.well-known/agent-card.json", {
      headers: { "If-None-Match": e03 as string, "A2A-Version": "1.0" },
    });
    expect(crossed.status).toBe(200);
    const same = await fetchWorker("/agents/writer/.well-known/agent-card.json", {
      headers: { "If-None-Match": e03 as string },
    });
    expect(same.status).toBe(304);
  });

  it("answers 304 to a matching If-None-Match and 200 to a stale one", async () => {
    const first = await fetchWorker("/agents/writer/.well-known/agent-card.json");
    const etag = first.headers.get("etag") as string;
    const again = await fetchWorker("/agents/writer/.well-known/agent-card.json", {
      headers: { "If-None-Match": etag },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
    const stale = await fetchWorker("/agents/writer/.well-known/agent-card.json", {
      headers: { "If-None-Match": '"old"' },
    });
    expect(stale.status).toBe(200);
  });

  it("sends Last-Modified and answers 304 to an If-Modified-Since not older than it", async () => {
    const first = await fetchWorker("/agents/writer/.well-known/agent-card.json", V1);
    const modified = first.headers.get("last-modified") as string;
    expect(Date.parse(modified)).toBeLessThanOrEqual(Date.now());
    const since = await fetchWorker("/agents/writer/.well-known/agent-card.json", {
      headers: { "A2A-Version": "1.0", "If-Modified-Since": modified },
    });
    expect(since.status).toBe(304);
    expect(since.headers.get("last-modified")).toBe(modified);
    const older = new Date(Date.parse(modified) - 60_000).toUTCString();
    const stale = await fetchWorker("/agents/writer/.well-known/agent-card.json", {
      headers: { "A2A-Version": "1.0", "If-Modified-Since": older },
    });
    expect(stale.status).toBe(200);
    // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
    const both = await fetchWorker("/agents/writer/.well-known/agent-card.json", {
      headers: { "A2A-Version": "1.0", "If-Modified-Since": modified, "If-None-Match": '"old"' },
    });
    expect(both.status).toBe(200);
  });

  it("serves the v0.3 card at the v0.2 path agent.json, root and per agent, whatever the header", async () => {
    for (const [path, name] of [
      ["/.well-known/agent.json", "assistant"],
      ["/agents/writer/.well-known/agent.json", "writer"],
    ] as const) {
      const response = await fetchWorker(path, V1);
      expect(response.status, path).toBe(200);
      const card = (await response.json()) as Record<string, unknown>;
      expect(card, path).toMatchObject({ name, protocolVersion: "0.3.0" });
      expect(card, path).not.toHaveProperty("supportedInterfaces");
    }
    expect((await fetchWorker("/agents/nobody/.well-known/agent.json")).status).toBe(404);
  });

  it("signs both card generations with AGENT_CARD_SIGNING_KEY and publishes its public key", async () => {
    const vars = { AGENT_CARD_SIGNING_KEY: await signingKey("card-key-1") };
    const jwks = (await (await fetchWith(vars, "/.well-known/jwks.json")).json()) as {
      keys: JWK[];
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kid: "card-key-1", alg: "ES256", kty: "EC", use: "sig" });
    expect(jwks.keys[0]).not.toHaveProperty("d");
    const keyFor = async (kid: string, jku?: string) => {
      expect(jku).toBe("http://harness.test/.well-known/jwks.json");
      const key = jwks.keys.find((k) => k.kid === kid);
      if (!key) throw new Error(`no key ${kid}`);
      return key;
    };
    for (const init of [V1, {}]) {
      const path = "/agents/writer/.well-known/agent-card.json";
      const card = (await (await fetchWith(vars, path, init)).json()) as Record<string, unknown>;
      const [signature] = card.signatures as Array<{ protected: string; signature: string }>;
      const header = JSON.parse(
        atob(signature?.protected.replace(/-/g, "+").replace(/_/g, "/") ?? ""),
      );
      expect(header).toMatchObject({ alg: "ES256", kid: "card-key-1", typ: "JOSE" });
      expect(await verifyCardSignature(card, keyFor)).toEqual({
        status: "verified",
        kid: "card-key-1",
        alg: "ES256",
      });
      const tampered = { ...card, description: "Something else entirely." };
      expect((await verifyCardSignature(tampered, keyFor)).status).toBe("invalid");
    }
    const unsigned = (await (
      await fetchWorker("/agents/writer/.well-known/agent-card.json", V1)
    ).json()) as Record<string, unknown>;
    expect(unsigned).not.toHaveProperty("signatures");
    expect(await verifyCardSignature(unsigned, keyFor)).toEqual({ status: "unsigned" });
    expect(await (await fetchWorker("/.well-known/jwks.json")).json()).toEqual({ keys: [] });
  });

  it("fails loudly on an unusable signing key: a JSON 500 (the log names the secret)", async () => {
    const response = await fetchWith(
      { AGENT_CARD_SIGNING_KEY: '{"kty":"EC","kid":"k"}' },
      "/agents/writer/.well-known/agent-card.json",
    );
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toContain("application/json");
  });

  it("serves the conformance agent only where CONFORMANCE_AGENT=true", async () => {
    const path = "/agents/conformance/.well-known/agent-card.json";
    expect((await fetchWorker(path, V1)).status).toBe(404);
    const on = await fetchWith({ CONFORMANCE_AGENT: "true" }, path);
    expect(on.status).toBe(200);
    const card = (await on.json()) as Record<string, unknown>;
    expect(card).toMatchObject({ name: "conformance", defaultInputModes: ["*/*"] });
    expect(card.description).not.toContain("scripted local model");
  });

  it("lists the agents with their card URLs", async () => {
    const body = (await (await fetchWorker("/agents")).json()) as {
      defaultAgent: string;
      agents: Array<{ name: string; url: string; cardUrl: string }>;
    };
    expect(body.defaultAgent).toBe("assistant");
    expect(body.agents.map((a) => a.name)).toEqual(SERVED_AGENTS);
    expect(body.agents.find((a) => a.name === "writer")).toMatchObject({
      url: "http://harness.test/agents/writer/",
      cardUrl: "http://harness.test/agents/writer/.well-known/agent-card.json",
    });
  });

  it("redirects a GET of the bare agent URL (keeping the query) and serves JSON-RPC there", async () => {
    const response = await fetchWorker("/agents/writer?x=1", { redirect: "manual" });
    expect(response.status).toBe(308);
    expect(response.headers.get("location")).toBe("http://harness.test/agents/writer/?x=1");
    // A client does not re-send a body after a redirect: POST is answered where it arrives.
    const post = await fetchWorker("/agents/writer", {
      method: "POST",
      headers: { "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "x" } }),
      redirect: "manual",
    });
    expect(post.status).toBe(200);
    expect(await post.json()).toMatchObject({ id: 3, error: { code: -32001 } });
  });

  it("answers unknown agents and routes with JSON 404s, never HTML", async () => {
    const card = await fetchWorker("/agents/nobody/.well-known/agent-card.json");
    expect(card.status).toBe(404);
    expect(((await card.json()) as { error: { message: string } }).error.message).toContain(
      "Unknown agent 'nobody'",
    );
    const rpc = await fetchWorker("/agents/nobody/", { method: "POST", body: "{}" });
    expect(rpc.status).toBe(404);
    expect(((await rpc.json()) as { error: { code: number } }).error.code).toBe(-32601);
    const other = await fetchWorker("/no/such/path");
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toContain("application/json");
  });

  it("switches the default agent off at its root aliases too, as at its own URLs", async () => {
    const off = { ENABLE_ASSISTANT: "false" };
    const listed = (await (await fetchWith(off, "/agents")).json()) as {
      agents: Array<{ name: string }>;
    };
    expect(listed.agents.map((a) => a.name)).not.toContain("assistant");
    const rpcBody = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "GetTask",
      params: { id: "x" },
    });
    const post = {
      method: "POST",
      headers: { "A2A-Version": "1.0", "content-type": "application/json" },
      body: rpcBody,
    };
    const send = JSON.stringify({
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] },
    });
    // Each at the root and at the assistant's own path, with the same request.
    const cases: Array<[string, string, RequestInit?]> = [
      ["card", "/.well-known/agent-card.json"],
      ["v0.2 card", "/.well-known/agent.json"],
      ["JSON-RPC", "/", post],
      ["REST get", "/tasks/x"],
      ["REST send", "/message:send", { ...V1, method: "POST", body: send }],
    ];
    for (const [what, path, init] of cases) {
      const atRoot = await fetchWith(off, path, init);
      const atOwn = await fetchWith(off, `/agents/assistant${path}`, init);
      expect(atRoot.status, what).toBe(404);
      expect(atOwn.status, what).toBe(404);
      const body = await atRoot.json();
      expect(body, what).toEqual(await atOwn.json());
      expect(JSON.stringify(body), path).toContain("Unknown agent 'assistant'");
    }
    // Another default agent is served at the root while the assistant is off.
    const writer = await fetchWith(
      { ...off, DEFAULT_AGENT: "writer" },
      "/.well-known/agent-card.json",
    );
    expect(((await writer.json()) as { name: string }).name).toBe("writer");
  });

  it("answers GET / with a small index and sends /agents/ to /agents", async () => {
    const index = (await (await fetchWorker("/")).json()) as Record<string, string>;
    expect(index).toMatchObject({
      defaultAgent: "assistant",
      agentCard: "http://harness.test/.well-known/agent-card.json",
      agents: "http://harness.test/agents",
    });
    const slash = await fetchWorker("/agents/", { redirect: "manual" });
    expect(slash.status).toBe(308);
    expect(slash.headers.get("location")).toBe("http://harness.test/agents");
  });

  it("never answers odd paths with HTML or a 5xx", async () => {
    for (const [path, method] of [
      ["/agents/%ZZ/.well-known/agent-card.json", "GET"],
      ["/agents/%ZZ/", "POST"],
      [`/agents/${"x".repeat(5000)}/`, "POST"],
      ["/", "PUT"],
      ["//agents", "GET"],
    ] as const) {
      const response = await fetchWorker(path, {
        method,
        ...(method === "GET" ? {} : { body: "{}" }),
      });
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toContain("application/json");
      expect((await response.text()).length, path).toBeLessThan(400);
    }
  });

  it("serves DEFAULT_AGENT at the root and PUBLIC_URL in the interfaces", async () => {
    const response = await fetchWith(
      { DEFAULT_AGENT: "writer", PUBLIC_URL: "https://agents.example.com/" },
      "/.well-known/agent-card.json",
    );
    const card = (await response.json()) as {
      name: string;
      supportedInterfaces: Array<{ url: string }>;
    };
    expect(card.name).toBe("writer");
    expect(card.supportedInterfaces[0]?.url).toBe("https://agents.example.com/");
    const listed = (await (
      await fetchWith({ PUBLIC_URL: "https://agents.example.com" }, "/agents")
    ).json()) as {
      agents: Array<{ name: string; url: string }>;
    };
    expect(listed.agents.find((a) => a.name === "assistant")?.url).toBe(
      "https://agents.example.com/agents/assistant/",
    );
  });

  it("announces the scripted local model in every card when there is no key", async () => {
    const response = await fetchWith(
      { ANTHROPIC_API_KEY: "", SCRIPTED_MODEL: "auto" },
      "/agents/researcher/.well-known/agent-card.json",
    );
    expect(((await response.json()) as { description: string }).description).toContain(
      "scripted local model, not Claude",
    );
  });

  it("reports health", async () => {
    expect(await (await fetchWorker("/health")).json()).toEqual({ ok: true });
  });
});
