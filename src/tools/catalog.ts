/**
 * Every tool the harness offers, and the set one agent gets: `TOOLS_ENABLED` (tool domains or
 * names, default all) first, then the agent's frontmatter `tools.allow` / `tools.deny`.
 * Domains: workspace, checkpoints, memory, web, knowledge, plan, progress, scratchpad, delegation,
 * a2a, human, code, skills (offered only to an agent that has Agent Skills); beside them, the
 * agent's MCP servers' tools (`mcp`) and its tools in code (`custom`), under the same filters.
 */

import type { AgentDefinition } from "../agents/identity.ts";
import type { Config } from "../config/config.ts";
import { ToolRegistry } from "../loop/calls/tool-registry.ts";
import type { Tool } from "../loop/contracts.ts";
import { a2aCallTool } from "./agents/a2a-call.ts";
import { a2aCallStreamingTool } from "./agents/a2a-call-streaming.ts";
import { a2aDiscoverTool } from "./agents/a2a-discover.ts";
import { a2aListTool } from "./agents/a2a-list.ts";
import { a2aCancelTool, a2aGetTaskTool } from "./agents/a2a-task.ts";
import { taskTool } from "./agents/task.ts";
import { askUserTool } from "./ask-user.ts";
import { WORKSPACE_TOOLS } from "./files/workspace-tools.ts";
import { fetchDocumentTool } from "./knowledge/fetch-document.ts";
import { searchTool } from "./knowledge/search.ts";
import { runCodeTool } from "./run-code/run-code.ts";
import { skillLoadTool } from "./skills/skill-load.ts";
import { skillReadTool } from "./skills/skill-read.ts";
import { featureUpdateTool } from "./state/features.ts";
import { memoryReadTool, memoryWriteTool } from "./state/memory.ts";
import { progressReadTool, progressUpdateTool } from "./state/progress.ts";
import { scratchListTool, scratchReadTool, scratchWriteTool } from "./state/scratch.ts";
import { stateRestoreTool } from "./state/state-restore.ts";
import { writeTodosTool } from "./state/todos.ts";
import { webFetchTool } from "./web/web-fetch.ts";

/** Every tool, in the order the model sees them. */
const TOOLS: readonly Tool[] = [
  ...WORKSPACE_TOOLS,
  memoryReadTool,
  memoryWriteTool,
  webFetchTool,
  runCodeTool,
  searchTool,
  fetchDocumentTool,
  writeTodosTool,
  progressReadTool,
  progressUpdateTool,
  featureUpdateTool,
  stateRestoreTool,
  scratchReadTool,
  scratchWriteTool,
  scratchListTool,
  taskTool,
  a2aListTool,
  a2aDiscoverTool,
  a2aCallTool,
  a2aCallStreamingTool,
  a2aGetTaskTool,
  a2aCancelTool,
  askUserTool,
  skillLoadTool,
  skillReadTool,
];

/** The whole catalog. */
export function allTools(): ToolRegistry {
  return new ToolRegistry(TOOLS);
}

/**
 * Tools a sub-agent's task never gets: it cannot ask the user or delegate further. `run_code` is
 * not among them (the reference design denies its sub-agents a shell): it is a fresh sandboxed
 * isolate with no network beyond what the agent is granted and bounded CPU and time, so a
 * sub-agent that writes code (the writer's guides and READMEs) runs it to verify it, as the
 * verification protocol asks. An agent's file can still deny it.
 */
export const SUBAGENT_DENIED = ["ask_user", "task"];

/**
 * The tools `agent` may call under `config` (as a sub-agent: without {@link SUBAGENT_DENIED}),
 * with `extra` tools (its tools in code, its MCP servers') under the same filters. `codeSandbox:
 * false` (a deployment without the Worker Loader binding, e.g. on the Workers Free plan) takes the
 * `code` domain away; an agent without Agent Skills has no `skills` domain.
 */
export function toolsFor(
  agent: AgentDefinition,
  config: Config,
  options: { subagent?: boolean; extra?: readonly Tool[]; codeSandbox?: boolean } = {},
): ToolRegistry {
  const deny = [
    ...(options.subagent ? SUBAGENT_DENIED : []),
    ...(options.codeSandbox === false ? ["code"] : []),
    ...(agent.skillFolders.length === 0 ? ["skills"] : []),
  ];
  return new ToolRegistry([...TOOLS, ...(options.extra ?? [])])
    .filter({ allow: config.toolsEnabled, deny })
    .filter({ allow: agent.tools.allow, deny: agent.tools.deny });
}

/**
 * Tool domains whose tools reach the task's workspace object: its files and state files, the
 * owner's memory, the sandbox (it runs the workspace's files), sub-agents (they share it), and
 * the agent's tools in code (they are given the workspace).
 */
const WORKSPACE_DOMAINS: ReadonlySet<string> = new Set([
  "workspace",
  "checkpoints",
  "memory",
  "progress",
  "code",
  "delegation",
  "custom",
]);

/** Whether any of `tools` reaches the workspace (see {@link WORKSPACE_DOMAINS}). */
export function reachesWorkspace(tools: ToolRegistry): boolean {
  return tools.all().some((tool) => WORKSPACE_DOMAINS.has(tool.domain));
}
