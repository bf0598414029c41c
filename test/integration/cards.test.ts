import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/worker.ts";
import { fetchWorker } from "../helpers/a2a.ts";

const V1 = { headers: { "A2A-Version": "1.0" } };

async function fetchWith(vars: Record<string, string>, path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(`http://harness.test${path}`, V1),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
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
      { url: "http://harness.test/", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "http://harness.test/", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: "http://harness.test/", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
    ]);
    expect((card.skills as unknown[]).length).toBeGreaterThan(0);
  });

  it("serves every agent's card under its base URL, with caching headers", async () => {
    for (const name of ["assistant", "researcher", "deep-thinker", "writer"]) {
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
        protocolVersion: "0.3.0",
        name: "writer",
        url: "http://harness.test/agents/writer/",
        preferredTransport: "JSONRPC",
        additionalInterfaces: [
          { url: "http://harness.test/agents/writer/", transport: "JSONRPC" },
          { url: "http://harness.test/agents/writer/", transport: "HTTP+JSON" },
        ],
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

  it("lists the agents with their card URLs", async () => {
    const body = (await (await fetchWorker("/agents")).json()) as {
      defaultAgent: string;
      agents: Array<{ name: string; url: string; cardUrl: string }>;
    };
    expect(body.defaultAgent).toBe("assistant");
    expect(body.agents.map((a) => a.name)).toEqual([
      "assistant",
      "deep-thinker",
      "researcher",
      "writer",
    ]);
    expect(body.agents[3]).toMatchObject({
      url: "http://harness.test/agents/writer/",
      cardUrl: "http://harness.test/agents/writer/.well-known/agent-card.json",
    });
  });

  it("redirects the bare agent URL to the canonical one with 308, keeping the query", async () => {
    const response = await fetchWorker("/agents/writer?x=1", { redirect: "manual" });
    expect(response.status).toBe(308);
    expect(response.headers.get("location")).toBe("http://harness.test/agents/writer/?x=1");
    const post = await fetchWorker("/agents/writer", {
      method: "POST",
      body: "{}",
      redirect: "manual",
    });
    expect(post.status).toBe(308);
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
      agents: Array<{ url: string }>;
    };
    expect(listed.agents[0]?.url).toBe("https://agents.example.com/agents/assistant/");
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
