import { AgentCard } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import {
  buildAgentCard,
  buildLegacyAgentCard,
  cardEtag,
  etagMatches,
} from "../../../../src/a2a/cards/card.ts";
import { parseIdentity } from "../../../../src/agents/identity.ts";
import { bundledAgents } from "../../../../src/agents/registry.ts";
import { loadConfig } from "../../../../src/config/config.ts";
import { v03CardTransports } from "../../../helpers/cards.ts";

const config = (vars: Record<string, string> = {}) =>
  loadConfig({ ANTHROPIC_API_KEY: "k", ALLOW_ANONYMOUS: "true", ...vars });

describe("agent card", () => {
  const agent = parseIdentity(
    "agents/demo/IDENTITY.md",
    [
      "---",
      "name: demo",
      "version: 2.1.0",
      "tags: [alpha]",
      "icon: https://example.com/icon.png",
      "starters: [Try me]",
      "---",
      "Demo agent. It *demos* things.",
      "",
      "## Skills",
      "### Summarise",
      "Summarises text.",
      "### Translate",
      "Translates text.",
    ].join("\n"),
  );

  it("is built from IDENTITY.md with the v1.0 fields", () => {
    const card = buildAgentCard(agent, { endpoint: "https://h/agents/demo/" }, config());
    expect(card).toMatchObject({
      name: "demo",
      description: "Demo agent. It demos things.",
      version: "2.1.0",
      supportedInterfaces: [
        { url: "https://h/agents/demo/", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "https://h/agents/demo", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        { url: "https://h/agents/demo/", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
        { url: "https://h/agents/demo", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
      ],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
      iconUrl: "https://example.com/icon.png",
    });
    expect(card.skills).toEqual([
      {
        id: "summarise",
        name: "Summarise",
        description: "Summarises text.",
        tags: ["alpha"],
        examples: ["Try me"],
      },
      { id: "translate", name: "Translate", description: "Translates text.", tags: ["alpha"] },
    ]);
    expect(card.defaultInputModes).toContain("text/plain");
    expect(card).not.toHaveProperty("securitySchemes");
  });

  it("round-trips through the SDK's AgentCard codec unchanged", () => {
    for (const bundled of bundledAgents().list()) {
      const card = buildAgentCard(
        bundled,
        { endpoint: "https://h/" },
        config({ A2A_API_KEY: "s" }),
      );
      expect(AgentCard.toJSON(AgentCard.fromJSON(card))).toEqual(card);
    }
  });

  it("announces the scripted model in the description and the bearer scheme when keyed", () => {
    const scripted = buildAgentCard(
      agent,
      { endpoint: "https://h/" },
      loadConfig({ SCRIPTED_MODEL: "auto", ALLOW_ANONYMOUS: "true" }),
    );
    expect(scripted.description).toContain("scripted local model, not Claude");
    const secured = buildAgentCard(
      agent,
      { endpoint: "https://h/" },
      config({ A2A_API_KEY: "secret" }),
    );
    expect(secured.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: expect.any(String) } },
    });
    expect(secured.capabilities).toMatchObject({ extendedAgentCard: true });
    expect(JSON.stringify(secured)).not.toContain('secret"');
    // Closed by default (no ALLOW_ANONYMOUS), and an OIDC issuer adds its scheme.
    const oidc = buildAgentCard(
      agent,
      { endpoint: "https://h/" },
      loadConfig({
        ANTHROPIC_API_KEY: "k",
        OIDC_ISSUER: "https://id.example.com",
        OIDC_AUDIENCE: "harness",
        OIDC_JWKS_URL: "https://id.example.com/jwks",
      }),
    );
    expect(oidc.securitySchemes).toMatchObject({
      oidc: {
        openIdConnectSecurityScheme: {
          openIdConnectUrl: "https://id.example.com/.well-known/openid-configuration",
        },
      },
    });
    expect(oidc.securityRequirements).toEqual([
      { schemes: { bearer: {} } },
      { schemes: { oidc: {} } },
    ]);
  });

  it("has a v0.3 form with url, protocolVersion, preferredTransport and v0.3 security", () => {
    const card = buildLegacyAgentCard(
      agent,
      { endpoint: "https://h/agents/demo/" },
      config({ A2A_API_KEY: "s" }),
    );
    expect(card).toMatchObject({
      ...v03CardTransports("https://h/agents/demo/"),
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      security: [{ bearer: [] }],
      supportsAuthenticatedExtendedCard: true,
    });
    expect(card.skills).toEqual(buildAgentCard(agent, { endpoint: "x" }, config()).skills);
  });

  it("has a stable strong ETag and matches If-None-Match lists", async () => {
    const etag = await cardEtag("{}");
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await cardEtag("{}")).toBe(etag);
    expect(await cardEtag("{ }")).not.toBe(etag);
    expect(etagMatches(`"x", ${etag}`, etag)).toBe(true);
    expect(etagMatches(`W/${etag}`, etag)).toBe(true);
    expect(etagMatches("*", etag)).toBe(true);
    expect(etagMatches('"other"', etag)).toBe(false);
    expect(etagMatches(null, etag)).toBe(false);
  });

  it("declares an extended card where the agent lists extendedSkills, open or closed", () => {
    const extended = parseIdentity(
      "agents/ext/IDENTITY.md",
      "---\nname: ext\nextendedSkills: [{ name: Secret, description: Only for users. }]\n---\nExt.",
    );
    const urls = { endpoint: "https://h/agents/ext/" };
    expect(buildAgentCard(extended, urls, config()).capabilities).toMatchObject({
      extendedAgentCard: true,
    });
    expect(buildLegacyAgentCard(extended, urls, config())).toMatchObject({
      supportsAuthenticatedExtendedCard: true,
    });
    const skills = buildAgentCard(extended, urls, config()).skills as Array<{ id: string }>;
    expect(skills.map((s) => s.id)).not.toContain("secret");
    expect(buildAgentCard(agent, urls, config()).capabilities).toMatchObject({
      extendedAgentCard: false,
    });
  });
});
