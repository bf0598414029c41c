/**
 * The tools of one model turn, gathered before its system prompt is built: the agent's catalog
 * tools with its tools in code (tools/custom/custom-tools.ts) and its MCP servers' tools under the same
 * filters (a sub-agent's task gets no `ask_user`/`task`, a deployment without the Worker Loader
 * binding no `code` domain; see tools/catalog.ts), with tools in code and MCP tools deferred
 * behind `tool_search` when the definitions are many (tools/tool-search.ts), and the system
 * prompt's block naming each MCP server that could not list its tools (mcp/unavailable.ts).
 * Servers are listed every turn, so the block comes and goes with them (the environment note is
 * written once per task; a server can fail or come back at any turn).
 */

import { mcpTools } from "../../mcp/tools.ts";
import { unavailableBlock } from "../../mcp/unavailable.ts";
import { reachesWorkspace, toolsFor } from "../../tools/catalog.ts";
import { customToolsOf } from "../../tools/custom/custom-tools.ts";
import { withToolSearch } from "../../tools/tool-search.ts";
import type { TurnInputs, TurnSource } from "./turn.ts";

/** A turn's tools, and how its system prompt names the MCP servers that are missing. */
export type TurnTools = Pick<TurnInputs, "tools" | "files" | "unavailable">;

/**
 * The tools `source`'s agent gets this turn under its configuration. `subagent`: the task was
 * started by another task (local or remote); what tool search loaded is in the task's hook state.
 */
export async function turnTools(source: TurnSource, subagent: boolean): Promise<TurnTools> {
  const { agent, config, env } = source;
  const mcp = await mcpTools(agent, env);
  const tools = withToolSearch(
    toolsFor(agent, config, {
      subagent,
      extra: [...customToolsOf(agent), ...mcp.tools],
      codeSandbox: Boolean(env.LOADER),
    }),
    agent.model,
    source.task.hookState,
    config.contextTokenBudget,
  );
  return { tools, files: reachesWorkspace(tools), unavailable: unavailableBlock(mcp.unavailable) };
}
