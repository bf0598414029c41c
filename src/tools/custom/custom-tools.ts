/**
 * The tools in code an agent runs, as the loop's tools (domain `custom`): the tools held by the
 * default exports the bundle checked (agents/bundle.ts), its own before the shared one of a name.
 * They join the agent's other tools in the turn (task/turn/turn-tools.ts).
 */
import { toolExportsOf } from "../../agents/bundle.ts";
import type { AgentDefinition } from "../../agents/identity.ts";
import type { Tool } from "../../loop/contracts.ts";
import { isAgentTool } from "./agent-tool.ts";

/** The tools in code `agent` runs: its own, else the shared tool of each name it was given. */
export function customToolsOf(agent: AgentDefinition): Tool[] {
  return toolExportsOf(agent).flatMap((exported) => (isAgentTool(exported) ? [exported.tool] : []));
}
