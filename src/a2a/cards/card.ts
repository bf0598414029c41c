/**
 * The Agent Card of an agent, built from its IDENTITY.md, in both protocol generations: the v1.0
 * card (`supportedInterfaces` listing JSON-RPC and HTTP+JSON, 1.0 and 0.3, at the agent's URL) and
 * the v0.3 card (`url`, `protocolVersion`, `preferredTransport`, `additionalInterfaces`). Name,
 * description, version, skills, capabilities, input/output modes, and the bearer scheme when an
 * API key is required (plus the delegation scheme and extension, listing the trusted issuers,
 * when `TRUSTED_ISSUERS` names any). The extended card (extended-card.ts) adds the frontmatter's
 * `extendedSkills`. Pure: no I/O.
 */
import type { AgentDefinition, AgentSkill } from "../../agents/identity.ts";
import type { Config } from "../../config/config.ts";
import { SUPPORTED_INPUT_MODES, SUPPORTED_OUTPUT_MODES } from "../../loop/prompt/user-content.ts";
import { sha256Hex } from "../../platform/hex.ts";
import {
  ANSWER_ECHO_EXTENSION,
  COST_EXTENSION,
  DELEGATION_EXTENSION,
  DELEGATION_SCHEME,
  GENERATIONS_EXTENSION,
  HARNESS_EVENTS_EXTENSION,
  LIVE_MESSAGES_EXTENSION,
} from "../../protocol/extensions.ts";
import { LIVE_MESSAGE_MAX_CHARS, LIVE_QUEUE_MAX } from "../../protocol/live-message.ts";

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

/** The issuers whose delegation tokens this deployment accepts (none: no delegation scheme). */
const issuersOf = (config: Config) => Object.keys(config.delegation.trustedIssuers);

const DELEGATION_DESCRIPTION =
  "Send Authorization: Bearer <delegation token>: a JWT of one of the issuers listed by the delegation extension, naming the user (sub), the calling agent (act) and this agent (aud).";

/** The delegation extension, as both card generations declare it (only with trusted issuers). */
const delegationExtensions = (config: Config) =>
  issuersOf(config).length > 0
    ? [
        {
          uri: DELEGATION_EXTENSION,
          description: "Accepts delegation tokens of these issuers.",
          // `required` holds its default (false): left out, as spec 1.0.1 §8.4.1 rule 1 asks.
          params: { issuers: issuersOf(config) },
        },
      ]
    : [];

/** The delegation scheme in each card generation's shape. */
const V1_DELEGATION = {
  httpAuthSecurityScheme: {
    scheme: "Bearer",
    bearerFormat: "JWT",
    description: DELEGATION_DESCRIPTION,
  },
};
const V03_DELEGATION = {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: DELEGATION_DESCRIPTION,
};

/** `{ delegation: scheme }` when issuers are trusted, else nothing (for spreading). */
const delegationScheme = (config: Config, scheme: object) =>
  issuersOf(config).length > 0 ? { [DELEGATION_SCHEME]: scheme } : {};

/**
 * An open card (anonymous callers welcome) that trusts issuers still declares the delegation
 * scheme, without requiring it: a calling harness then says who it calls for.
 */
const openDelegation = (config: Config, scheme: object) =>
  issuersOf(config).length > 0 ? { securitySchemes: delegationScheme(config, scheme) } : {};

/** The cost extension, as both card generations declare it. */
const COST_CARD_EXTENSION = {
  uri: COST_EXTENSION,
  description:
    "A task's token usage and estimated cost (USD, from list prices) in its metadata and in its final status update's metadata, under this URI: { usage, estimatedCostUsd, model }.",
};

/** The answer echo (protocol/answer-echo.ts), as both card generations declare it. */
const ANSWER_ECHO_CARD_EXTENSION = {
  uri: ANSWER_ECHO_EXTENSION,
  description:
    "Just before a task completes, its stream repeats the answer artifact's text as a working status message that lists this URI in its extensions, for clients that show only status messages. A client that shows the answer artifact skips that message.",
};

/** Task generations (a2a/extension-activation.ts), as both card generations declare it. */
const GENERATIONS_CARD_EXTENSION = {
  uri: GENERATIONS_EXTENSION,
  description:
    "Opt in per request with the header A2A-Extensions: <this URI> (A2A 1.0 requests). Tasks and their status and artifact events carry generation (a decimal string: 1 at creation, one more per status or artifact change); GetTask takes currentGeneration and holds (at most 25 s) until the task moves past it; a send's configuration.ifGenerationMatch that is stale is refused with TaskGenerationMismatchError (-32010, HTTP 409). The A2A 1.1 draft's names.",
};

/** Live messages (protocol/live-message.ts), as both card generations declare them. */
const LIVE_MESSAGES_CARD_EXTENSION = {
  uri: LIVE_MESSAGES_EXTENSION,
  description: `Messages to a working task (the A2A 1.1 draft's SendLiveMessage): SendLiveMessage over JSON-RPC, or POST live over HTTP+JSON, with { message } naming the task (taskId), answers at once with the current Task; so does a send naming a working task whose message lists this URI in its extensions. The message is kept with the task and reaches the model at its next step as a user turn; the task's streams (SubscribeToTask is the downlink) show it as a working status update whose message, role user, lists this URI. At most ${LIVE_QUEUE_MAX} wait at once, each at most ${LIVE_MESSAGE_MAX_CHARS} characters of parts.`,
};

/** The extensions both card generations declare, the same list for each. */
const cardExtensions = (config: Config) => [
  HARNESS_EXTENSION,
  COST_CARD_EXTENSION,
  ANSWER_ECHO_CARD_EXTENSION,
  GENERATIONS_CARD_EXTENSION,
  LIVE_MESSAGES_CARD_EXTENSION,
  ...delegationExtensions(config),
];

const isHttpsUrl = (value: string) => /^https:\/\//.test(value);

/** The description, with a warning when the agent answers with the scripted model. */
const cardDescription = (agent: AgentDefinition, config: Config) =>
  agent.description +
  (config.modelMode === "scripted" && agent.program === null ? SCRIPTED_NOTE : "");

/** A skill as both card generations list it. */
export const cardSkill = (skill: AgentSkill) => ({
  id: skill.id,
  name: skill.name,
  description: skill.description,
  tags: skill.tags,
  ...(skill.examples.length > 0 ? { examples: skill.examples } : {}),
});

/** Input/output modes and skills: the same in both card generations. */
function describedSkills(agent: AgentDefinition) {
  return {
    defaultInputModes: [...(agent.inputModes ?? SUPPORTED_INPUT_MODES)],
    defaultOutputModes: [...(agent.outputModes ?? SUPPORTED_OUTPUT_MODES)],
    skills: agent.skills.map(cardSkill),
  };
}

/**
 * Whether the agent has an extended card: on a closed deployment (every caller authenticated),
 * and wherever its frontmatter lists `extendedSkills`.
 */
export const declaresExtendedCard = (agent: AgentDefinition, config: Config): boolean =>
  !config.allowAnonymous || agent.extendedSkills.length > 0;

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
      extendedAgentCard: declaresExtendedCard(agent, config),
      extensions: cardExtensions(config),
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
            ...delegationScheme(config, V1_DELEGATION),
          },
          securityRequirements: [
            { schemes: { bearer: {} } },
            ...(config.oidc ? [{ schemes: { oidc: {} } }] : []),
            ...(issuersOf(config).length > 0 ? [{ schemes: { [DELEGATION_SCHEME]: {} } }] : []),
          ],
        }
      : openDelegation(config, V1_DELEGATION)),
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
      extensions: cardExtensions(config),
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
            ...delegationScheme(config, V03_DELEGATION),
          },
          security: [
            { bearer: [] },
            ...(config.oidc ? [{ oidc: [] }] : []),
            ...(issuersOf(config).length > 0 ? [{ [DELEGATION_SCHEME]: [] }] : []),
          ],
        }
      : openDelegation(config, V03_DELEGATION)),
    ...describedSkills(agent),
    supportsAuthenticatedExtendedCard: declaresExtendedCard(agent, config),
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
