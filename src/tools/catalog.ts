/**
 * Every tool the harness offers, and the set one agent gets: `TOOLS_ENABLED` (tool domains or
 * names, default all) first, then the agent's frontmatter `tools.allow` / `tools.deny`.
 * Domains: workspace, checkpoints, memory, web, knowledge, plan, progress, human.
 */

import type { AgentDefinition } from "../agents/identity.ts";
import type { Config } from "../config.ts";
import { askUserTool } from "./ask-user.ts";
import { fetchDocumentTool } from "./fetch-document.ts";
import { memoryReadTool, memoryWriteTool } from "./memory.ts";
import { progressReadTool, progressUpdateTool } from "./progress.ts";
import { ToolRegistry } from "./registry.ts";
import { searchTool } from "./search.ts";
import { writeTodosTool } from "./todos.ts";
import type { Tool } from "./types.ts";
import { webFetchTool } from "./web-fetch.ts";
import { WORKSPACE_TOOLS } from "./workspace-tools.ts";

/** Every tool, in the order the model sees them. */
const TOOLS: readonly Tool[] = [
  ...WORKSPACE_TOOLS,
  memoryReadTool,
  memoryWriteTool,
  webFetchTool,
  searchTool,
  fetchDocumentTool,
  writeTodosTool,
  progressReadTool,
  progressUpdateTool,
  askUserTool,
];

/** The whole catalog. */
export function allTools(): ToolRegistry {
  return new ToolRegistry(TOOLS);
}

/** The tools `agent` may call under `config`. */
export function toolsFor(agent: AgentDefinition, config: Config): ToolRegistry {
  return allTools()
    .filter({ allow: config.toolsEnabled, deny: [] })
    .filter({ allow: agent.tools.allow, deny: agent.tools.deny });
}
