/**
 * `a2a_discover` answers the remote Agent Card itself, as compact JSON, from either shape the
 * SDK's card resolver hands back (v1.0 cards, v0.3 cards through its legacy translation); a
 * hostile card is bounded. The per-isolate card cache keeps a card CARD_TTL_MS and `refresh`
 * reads it again; a card's new description reaches the sub-agents section of prompts once it
 * lapses. Cards are served by a counting fetch; each test uses its own base URL, since the
 * cache lives as long as the isolate.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { currentAgents } from "../../src/agents/overrides.ts";
import type { RemoteAgents, RemoteTarget } from "../../src/loop/contracts.ts";
import { systemPrompt } from "../../src/loop/prompt/prompt.ts";
import { CARD_JSON_MAX_CHARS, compactCardJson } from "../../src/remote/card-json.ts";
import { CARD_TTL_MS, discoverCard } from "../../src/remote/client.ts";
import { withCardDescriptions } from "../../src/subagents/registry.ts";
import { a2aDiscoverTool } from "../../src/tools/agents/a2a-discover.ts";
import { toolContext } from "../helpers/tool-context.ts";

/** A fetch that serves `card` as the agent card and counts the reads. */
function cardServer(card: unknown): { fetch: typeof fetch; reads: () => number } {
  let reads = 0;
  return {
    fetch: async (input) => {
      reads++;
      expect(String(input)).toMatch(/\/\.well-known\/agent-card\.json$/);
      return Response.json(card);
    },
    reads: () => reads,
  };
}

const target = (baseUrl: string): RemoteTarget => ({ label: baseUrl, baseUrl, entry: null });

/** The card as a2a_discover answers it, read through the SDK's resolver. */
async function discovered(card: unknown, baseUrl: string): Promise<Record<string, unknown>> {
  const server = cardServer(card);
  return JSON.parse(compactCardJson(await discoverCard(server.fetch, target(baseUrl))));
}

/** What the compact card keeps as the card has it: identity, interfaces, a skill. */
const IDENTITY = { name: "pipeline", description: "Runs the data pipeline.", version: "2.1.0" };
const INTERFACES = [
  { url: "https://pipe.test/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  { url: "https://pipe.test/a2a/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
];
const ETL_SKILL = {
  id: "etl",
  name: "ETL",
  description: "Loads and transforms data.",
  tags: ["data"],
  examples: ["Load yesterday's orders", "Rebuild the sales table"],
};

const V1_CARD = {
  ...IDENTITY,
  supportedInterfaces: INTERFACES,
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extensions: [{ uri: "urn:ext:one", description: "x", required: false }],
  },
  securitySchemes: {
    bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT", description: "d" } },
    key: { apiKeySecurityScheme: { location: "header", name: "X-Key", description: "" } },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { key: {} } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [ETL_SKILL],
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a2a_discover's card JSON", () => {
  it("is the card itself: identity, url, interfaces, capabilities, skills, security", async () => {
    expect(await discovered(V1_CARD, "https://json-v1.test/")).toEqual({
      ...IDENTITY,
      url: "https://pipe.test/a2a",
      interfaces: INTERFACES,
      capabilities: {
        streaming: true,
        pushNotifications: false,
        extendedAgentCard: false,
        extensions: ["urn:ext:one"],
      },
      skills: [ETL_SKILL],
      security: {
        schemes: {
          bearer: { type: "http", scheme: "Bearer", bearerFormat: "JWT" },
          key: { type: "apiKey", in: "header", name: "X-Key" },
        },
        required: [{ bearer: [] }, { key: [] }],
      },
    });
  });

  it("reads a v0.3 card the same way, and an open card has security null", async () => {
    const v03 = await discovered(
      {
        protocolVersion: "0.3.0",
        name: "old",
        description: "An older agent.",
        url: "https://old.test/rpc",
        preferredTransport: "JSONRPC",
        version: "0.9.0",
        capabilities: { streaming: false },
        securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
        security: [{ bearer: [] }],
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [{ id: "s1", name: "Answer", description: "Answers.", tags: [], examples: ["hi"] }],
      },
      "https://json-v03.test/",
    );
    expect(v03).toMatchObject({
      name: "old",
      url: "https://old.test/rpc",
      interfaces: [{ url: "https://old.test/rpc", protocolBinding: "JSONRPC" }],
      capabilities: { streaming: false },
      skills: [{ id: "s1", examples: ["hi"] }],
      security: {
        schemes: { bearer: { type: "http", scheme: "bearer" } },
        required: [{ bearer: [] }],
      },
    });
    const open = await discovered(
      { ...V1_CARD, securitySchemes: {}, securityRequirements: [] },
      "https://json-open.test/",
    );
    expect(open.security).toBeNull();
  });

  it("bounds a hostile card: own properties of the right types only, clipped, within the cap", () => {
    const hostile = JSON.parse(
      JSON.stringify({
        name: `  evil\n\nagent${"!".repeat(500)}`,
        description: 42,
        supportedInterfaces: [{ url: "https://e.test/" }, "nope", { url: { x: 1 } }],
        capabilities: { streaming: "yes" },
        skills: Array.from({ length: 200 }, (_, i) => ({
          id: `s${i}`,
          name: "n".repeat(500),
          description: "d".repeat(5_000),
          examples: Array.from({ length: 50 }, () => "e".repeat(1_000)),
        })),
        securitySchemes: { weird: { toString: "x" }, constructor: { type: "http" } },
      }),
    );
    const json = compactCardJson(hostile);
    expect(json.length).toBeLessThanOrEqual(CARD_JSON_MAX_CHARS);
    const card = JSON.parse(json) as {
      name: string;
      description?: string;
      interfaces: unknown[];
      capabilities: { streaming: boolean };
      skills: Array<{ name: string; description: string; examples: string[] }>;
      skillsOmitted: number;
      security: { schemes: Record<string, unknown> };
    };
    expect(card.name).toMatch(/^evil agent!+…$/);
    expect(card.name).toHaveLength(200);
    expect(card.description).toBeUndefined();
    expect(card.interfaces).toEqual([{ url: "https://e.test/" }]);
    expect(card.capabilities.streaming).toBe(false);
    expect(card.skills[0]?.examples).toHaveLength(3);
    expect(card.skills[0]?.description).toHaveLength(300);
    expect(card.skills.length + card.skillsOmitted).toBe(30);
    expect(card.skillsOmitted).toBeGreaterThan(0);
    expect(card.security.schemes).toEqual({ constructor: { type: "http" } });
    // Not even an object: an empty card.
    expect(JSON.parse(compactCardJson("card"))).toEqual({
      capabilities: {
        streaming: false,
        pushNotifications: false,
        extendedAgentCard: false,
      },
      security: null,
    });
  });
});

describe("the card cache", () => {
  it("keeps a card five minutes per isolate; refresh reads it again", async () => {
    const server = cardServer(V1_CARD);
    const at = target("https://cache.test/");
    const clock = vi.spyOn(Date, "now");
    const t0 = 1_800_000_000_000;
    clock.mockReturnValue(t0);
    await discoverCard(server.fetch, at);
    expect(server.reads()).toBe(1);
    clock.mockReturnValue(t0 + CARD_TTL_MS - 1);
    await discoverCard(server.fetch, at);
    expect(server.reads()).toBe(1);
    await discoverCard(server.fetch, at, true);
    expect(server.reads()).toBe(2);
    // The refreshed copy's time starts at the refresh.
    const t1 = t0 + CARD_TTL_MS - 1;
    clock.mockReturnValue(t1 + CARD_TTL_MS - 1);
    await discoverCard(server.fetch, at);
    expect(server.reads()).toBe(2);
    clock.mockReturnValue(t1 + CARD_TTL_MS);
    await discoverCard(server.fetch, at);
    expect(server.reads()).toBe(3);
  });

  it("a2a_discover reads through the cache, and again with refresh: true", async () => {
    const server = cardServer(V1_CARD);
    const remote: RemoteAgents = {
      registry: () => [],
      connect: () => ({
        ok: true,
        target: target("https://tool-cache.test/"),
        fetch: server.fetch,
      }),
    };
    const context = toolContext({ remote });
    const first = await a2aDiscoverTool.run({ agent: "https://tool-cache.test/" }, context);
    expect(first.isError).toBeFalsy();
    expect(JSON.parse(first.content)).toMatchObject({ name: "pipeline", version: "2.1.0" });
    await a2aDiscoverTool.run({ agent: "https://tool-cache.test/" }, context);
    expect(server.reads()).toBe(1);
    const fresh = await a2aDiscoverTool.run(
      { agent: "https://tool-cache.test/", refresh: true },
      context,
    );
    expect(server.reads()).toBe(2);
    expect(fresh.content).toBe(first.content);
  });

  it("a remote card's new description reaches the prompt once the cached card lapses", async () => {
    let description = "Runs the data pipeline.";
    const server = cardServer(V1_CARD);
    const changing: typeof fetch = async (input, init) => {
      await server.fetch(input, init);
      return Response.json({ ...V1_CARD, description });
    };
    const remote: RemoteAgents = {
      registry: () => [],
      connect: () => ({ ok: true, target: target("https://ttl.test/"), fetch: changing }),
    };
    const agent = bundledAgentsForPrompt();
    const promptNow = async () => {
      const subagents = await withCardDescriptions(
        [{ name: "pipeline", description: "", transport: "pipeline" }],
        remote,
      );
      return systemPrompt({ ...PROMPT_BASE, agent, delegation: { subagents } })[0]?.text ?? "";
    };
    const clock = vi.spyOn(Date, "now");
    const t0 = 1_900_000_000_000;
    clock.mockReturnValue(t0);
    expect(await promptNow()).toContain("- pipeline: Runs the data pipeline.");
    description = "Runs the new pipeline.";
    clock.mockReturnValue(t0 + CARD_TTL_MS - 1);
    expect(await promptNow()).toContain("- pipeline: Runs the data pipeline.");
    clock.mockReturnValue(t0 + CARD_TTL_MS);
    expect(await promptNow()).toContain("- pipeline: Runs the new pipeline.");
    expect(server.reads()).toBe(2);
  });
});

/** Any agent of the set, for its system prompt. */
function bundledAgentsForPrompt() {
  const agent = currentAgents().list()[0];
  if (!agent) throw new Error("no agent");
  return agent;
}

const PROMPT_BASE = {
  tools: ["task"],
  memory: { shared: null, user: null },
  environment: null,
  now: new Date(0),
  timeZone: "UTC",
};
