/**
 * The tools of one model turn, gathered before its system prompt is built: the agent's catalog
 * tools with its tools in code (agents/bundle.ts) and its MCP servers' tools under the same
 * filters (a sub-agent's task gets no `ask_user`/`task`, a deployment without the Worker Loader
 * binding no `code` domain; see tools/catalog.ts), with tools in code and MCP tools deferred
 * behind `tool_search` when the definitions are many (tools/tool-search.ts), and the system
 * prompt's block naming each MCP server that could not list its tools (mcp/unavailable.ts).
 * Servers are listed every turn, so the block comes and goes with them (the environment note is
 * written once per task; a server can fail or come back at any turn).
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { customToolsOf } from "../../agents/bundle.ts";
import type { AgentDefinition } from "../../agents/identity.ts";
import type { Config } from "../../config/config.ts";
import type { ToolRegistry } from "../../loop/calls/tool-registry.ts";
import type { HookState } from "../../loop/contracts.ts";
import { mcpTools } from "../../mcp/tools.ts";
import { unavailableBlock } from "../../mcp/unavailable.ts";
import { reachesWorkspace, toolsFor } from "../../tools/catalog.ts";
import { withToolSearch } from "../../tools/tool-search.ts";

/** A turn's tools, and how its system prompt names the MCP servers that are missing. */
export interface TurnTools {
  /** The tools the model gets this turn. */
  tools: ToolRegistry;
  /** Whether the tools reach the task's workspace object (see tools/catalog.ts). */
  files: boolean;
  /** `system` with the block about unavailable MCP servers last, when a server is missing. */
  withUnavailable(system: TextBlockParam[]): TextBlockParam[];
}

/**
 * The tools `agent` gets this turn under `config`. `subagent`: the task was started by another
 * task (local or remote); `hookState` is the task's (what tool search loaded).
 */
export async function turnTools(input: {
  agent: AgentDefinition;
  config: Config;
  env: Env;
  subagent: boolean;
  hookState: HookState;
}): Promise<TurnTools> {
  const { agent, config, env } = input;
  const mcp = await mcpTools(agent, env);
  const tools = withToolSearch(
    toolsFor(agent, config, {
      subagent: input.subagent,
      extra: [...customToolsOf(agent), ...mcp.tools],
      codeSandbox: Boolean(env.LOADER),
    }),
    agent.model,
    input.hookState,
    config.contextTokenBudget,
  );
  const unavailable = unavailableBlock(mcp.unavailable);
  return {
    tools,
    files: reachesWorkspace(tools),
    withUnavailable: (system) => (unavailable ? [...system, unavailable] : system),
  };
}
