/**
 * The roster of agents as clients see it (`GET /agents`, and each `agents` event of
 * `GET /api/events`): the default agent, every agent served (not switched off with
 * `ENABLE_<NAME>=false`) with its description, version and URLs, and the agents whose IDENTITY.md
 * is broken with the error. Public: no caller's data. Pure: reads the current registry.
 */
import { loadConfig } from "../config/config.ts";
import { agentUrl } from "../config/public-url.ts";
import type { AgentDefinition } from "./identity.ts";
import { currentAgents } from "./overrides.ts";

/** One agent of the roster. */
export interface RosterAgent {
  name: string;
  description: string;
  version: string;
  url: string;
  cardUrl: string;
  /** The frontmatter's icon (an emoji or an https URL), for the console. */
  icon?: string;
  /** The frontmatter's starter prompts, for the console. */
  starters: string[];
}

/** The roster: `unavailable` only when some agent's file is broken. */
export interface Roster {
  defaultAgent: string;
  agents: RosterAgent[];
  unavailable?: Array<{ name: string; error: string }>;
}

/** The agents this deployment serves: those of the registry not switched off. */
export function servedAgents(env: Env): AgentDefinition[] {
  const disabled = loadConfig(env).network.disabled;
  return currentAgents()
    .list()
    .filter((agent) => !disabled.includes(agent.name));
}

/** The served agent `name` (the one agent lookup), or undefined: unknown, broken or switched off. */
export function servedAgent(env: Env, name: string): AgentDefinition | undefined {
  const agent = currentAgents().get(name);
  return agent && !loadConfig(env).network.disabled.includes(name) ? agent : undefined;
}

/** The roster, its URLs under `baseUrl` (no trailing slash). */
export function agentRoster(env: Env, baseUrl: string): Roster {
  const unavailable = currentAgents().brokenList();
  return {
    defaultAgent: loadConfig(env).defaultAgent,
    agents: servedAgents(env).map((agent) => {
      const url = agentUrl(baseUrl, agent.name);
      return {
        name: agent.name,
        description: agent.description,
        version: agent.version,
        url,
        cardUrl: `${url}.well-known/agent-card.json`,
        ...(agent.icon ? { icon: agent.icon } : {}),
        starters: agent.starters,
      };
    }),
    ...(unavailable.length > 0 ? { unavailable } : {}),
  };
}
