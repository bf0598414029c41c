/**
 * The Agent Card of an agent, built from its IDENTITY.md, in both protocol generations: the v1.0
 * card (`supportedInterfaces` listing JSON-RPC and HTTP+JSON, 1.0 and 0.3, at the agent's URL) and
 * the v0.3 card (`url`, `protocolVersion`, `preferredTransport`, `additionalInterfaces`). Name,
 * description, version, skills, capabilities, input/output modes, and the bearer scheme when an
 * API key is required. Pure: no I/O.
 */
import type { AgentDefinition } from "../agents/identity.ts";
import type { Config } from "../config/config.ts";
import { SUPPORTED_INPUT_MODES, SUPPORTED_OUTPUT_MODES } from "../loop/user-content.ts";
import { sha256Hex } from "../platform/hex.ts";
import { COST_EXTENSION, HARNESS_EVENTS_EXTENSION } from "../protocol/extensions.ts";

/** Where an agent is served. */
export interface CardUrls {
  /** The A2A endpoint (JSON-RPC), e.g. `https://host/agents/writer/`. */
  endpoint: string;
}

/**
 * The HTTP+JSON base URL: the endpoint without its trailing slash, since clients append the
 * binding's paths with one (`<url>/message:send`, spec 1.0.1 §11.3).
 */
const restUrl = (urls: CardUrls) => urls.endpoint.replace(/\/+$/, "");

const SCRIPTED_NOTE =
  " (This deployment runs on the scripted local model, not Claude: no ANTHROPIC_API_KEY is configured.)";

/** The harness-events extension, as both card generations declare it. */
const HARNESS_EXTENSION = {
  uri: HARNESS_EVENTS_EXTENSION,
  description:
    "Tool calls, plans and harness interventions arrive as working status updates whose message carries a data part { kind, agent, tool?, path?, detail }.",
};

/** The cost extension, as both card generations declare it. */
const COST_CARD_EXTENSION = {
  uri: COST_EXTENSION,
  description:
    "A task's token usage and estimated cost (USD, from list prices) in its metadata and in its final status update's metadata, under this URI: { usage, estimatedCostUsd, model }.",
};

const isHttpsUrl = (value: string) => /^https:\/\//.test(value);

/** The description, with a warning when the agent answers with the scripted model. */
const cardDescription = (agent: AgentDefinition, config: Config) =>
  agent.description +
  (config.modelMode === "scripted" && agent.program === null ? SCRIPTED_NOTE : "");

/** Input/output modes and skills: the same in both card generations. */
function describedSkills(agent: AgentDefinition) {
  return {
    defaultInputModes: [...(agent.inputModes ?? SUPPORTED_INPUT_MODES)],
    defaultOutputModes: [...(agent.outputModes ?? SUPPORTED_OUTPUT_MODES)],
    skills: agent.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      ...(skill.examples.length > 0 ? { examples: skill.examples } : {}),
    })),
  };
}

/** Builds one generation's card as JSON. */
export type CardBuilder = (
  agent: AgentDefinition,
  urls: CardUrls,
  config: Config,
) => Record<string, unknown>;

/** The agent's v1.0 card as JSON. */
export const buildAgentCard: CardBuilder = (agent, urls, config) => {
  const secured = !config.allowAnonymous;
  return {
    name: agent.name,
    description: cardDescription(agent, config),
    supportedInterfaces: [
      { url: urls.endpoint, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: restUrl(urls), protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: urls.endpoint, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: restUrl(urls), protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
    ],
    version: agent.version,
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: secured,
      extensions: [HARNESS_EXTENSION, COST_CARD_EXTENSION],
    },
    ...(secured
      ? {
          securitySchemes: {
            bearer: {
              httpAuthSecurityScheme: {
                scheme: "Bearer",
                description: BEARER_DESCRIPTION,
              },
            },
            ...(config.oidc
              ? {
                  oidc: {
                    openIdConnectSecurityScheme: {
                      openIdConnectUrl: oidcDiscoveryUrl(config.oidc.issuer),
                      description: "A JWT from this issuer, as a bearer token.",
                    },
                  },
                }
              : {}),
          },
          securityRequirements: [
            { schemes: { bearer: {} } },
            ...(config.oidc ? [{ schemes: { oidc: {} } }] : []),
          ],
        }
      : {}),
    ...describedSkills(agent),
    ...(agent.icon && isHttpsUrl(agent.icon) ? { iconUrl: agent.icon } : {}),
  };
};

/** The agent's v0.3 card (spec v0.3.0 AgentCard) as JSON. */
export const buildLegacyAgentCard: CardBuilder = (agent, urls, config) => {
  const secured = !config.allowAnonymous;
  return {
    protocolVersion: "0.3.0",
    name: agent.name,
    description: cardDescription(agent, config),
    url: urls.endpoint,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: urls.endpoint, transport: "JSONRPC" },
      { url: restUrl(urls), transport: "HTTP+JSON" },
    ],
    version: agent.version,
    capabilities: {
      streaming: true,
      pushNotifications: true,
      stateTransitionHistory: false,
      extensions: [HARNESS_EXTENSION, COST_CARD_EXTENSION],
    },
    ...(secured
      ? {
          securitySchemes: {
            bearer: { type: "http", scheme: "bearer", description: BEARER_DESCRIPTION },
            ...(config.oidc
              ? {
                  oidc: {
                    type: "openIdConnect",
                    openIdConnectUrl: oidcDiscoveryUrl(config.oidc.issuer),
                    description: "A JWT from this issuer, as a bearer token.",
                  },
                }
              : {}),
          },
          security: [{ bearer: [] }, ...(config.oidc ? [{ oidc: [] }] : [])],
        }
      : {}),
    ...describedSkills(agent),
    supportsAuthenticatedExtendedCard: secured,
    ...(agent.icon && isHttpsUrl(agent.icon) ? { iconUrl: agent.icon } : {}),
  };
};

const BEARER_DESCRIPTION =
  "Send Authorization: Bearer <token>: a user token (npm run users), or a JWT from the configured OIDC issuer.";

const oidcDiscoveryUrl = (issuer: string) =>
  `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;

/** A strong ETag for a card body: the first 16 bytes of its SHA-256, hex, quoted. */
export async function cardEtag(body: string): Promise<string> {
  return `"${(await sha256Hex(body)).slice(0, 32)}"`;
}

/** True when an `If-None-Match` header matches `etag` (weak comparison, `*` included). */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === bare);
}
