/**
 * The sub-agent types a task may delegate to: the agents bundled into this Worker (later also the
 * remote A2A agents of the registry), each with its card description.
 */
import { bundledAgents } from "../agents/registry.ts";
import type { Config } from "../config.ts";
import type { SubagentType } from "./types.ts";

/** Every sub-agent type this deployment offers. */
export function subagentTypes(_config: Config): SubagentType[] {
  return bundledAgents()
    .list()
    .map((agent) => ({
      name: agent.name,
      description: agent.description,
      transport: "local",
    }));
}
