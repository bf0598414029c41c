/**
 * The sub-agent types a task may delegate to: the agents bundled into this Worker and the remote
 * A2A agents of the registry, minus those switched off (`ENABLE_<NAME>=false`) and those that run a
 * program instead of a model (`program:` in IDENTITY.md). A bundled agent
 * named in `DISTRIBUTED_AGENTS` runs remotely, at the registry entry of the same name.
 */
import { currentAgents } from "../agents/overrides.ts";
import type { Config } from "../config/config.ts";
import type { RemoteAgents, SubagentType } from "../loop/contracts.ts";
import { discoverCard } from "../remote/client.ts";

/** Every sub-agent type this deployment offers. */
export function subagentTypes(config: Config): SubagentType[] {
  const { agents, distributed, disabled } = config.network;
  const local = currentAgents()
    .list()
    // A program-driven agent (agents/conformance) follows a script, not a brief: no delegate.
    .filter((agent) => !disabled.includes(agent.name) && agent.program === null)
    .map((agent) => ({
      name: agent.name,
      description: agent.description,
      transport: distributed.includes(agent.name) ? agent.name : "local",
    }));
  const remote = Object.values(agents)
    .filter((entry) => !disabled.includes(entry.name) && !currentAgents().has(entry.name))
    .map((entry) => ({
      name: entry.name,
      description: entry.description ?? "",
      transport: entry.name,
    }));
  return [...local, ...remote];
}

/** Fills in missing descriptions of remote types from their cards (cached; failures say so). */
export async function withCardDescriptions(
  types: SubagentType[],
  remote: RemoteAgents,
): Promise<SubagentType[]> {
  return Promise.all(
    types.map(async (type) => {
      if (type.transport === "local" || type.description !== "") return type;
      const connection = remote.connect(type.transport);
      if (!connection.ok) return { ...type, description: "(remote agent)" };
      try {
        const card = await discoverCard(connection.fetch, connection.target);
        return { ...type, description: card.description || "(remote agent)" };
      } catch {
        return { ...type, description: "(remote agent; its card could not be read just now)" };
      }
    }),
  );
}
