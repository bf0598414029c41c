/**
 * The names of the harness's tools and tool domains, as data: what frontmatter `tools.allow`,
 * `tools.deny` and `tools.requireApproval` may name (beside an agent's MCP tools,
 * `<server>__<tool>`, and its tools in code), and which names a tool in code may take. Pure, so
 * the IDENTITY.md parser (and the Node build script) can check names without loading the tools;
 * a unit test keeps it equal to the catalog.
 */

/** Every built-in tool's name. */
export const TOOL_NAMES: readonly string[] = [
  "read_file",
  "write_file",
  "edit_file",
  "list_files",
  "grep_files",
  "attach_file",
  "checkpoint_create",
  "checkpoint_list",
  "checkpoint_restore",
  "memory_read",
  "memory_write",
  "web_fetch",
  "run_code",
  "search",
  "fetch_document",
  "write_todos",
  "progress_read",
  "progress_update",
  "feature_update",
  "state_restore",
  "scratch_read",
  "scratch_write",
  "scratch_list",
  "task",
  "a2a_list",
  "a2a_discover",
  "a2a_call",
  "a2a_call_streaming",
  "a2a_get_task",
  "a2a_cancel",
  "ask_user",
  "skill_load",
  "skill_read",
];

/** Every tool domain (`mcp` holds the agent's MCP servers' tools). */
export const TOOL_DOMAINS: readonly string[] = [
  "workspace",
  "checkpoints",
  "memory",
  "web",
  "code",
  "knowledge",
  "plan",
  "progress",
  "scratchpad",
  "delegation",
  "a2a",
  "human",
  "skills",
  "mcp",
  "custom",
];

/**
 * Why `name` cannot be the name of a tool in code (`agents/<agent>/tools/<name>.ts`, or a shared
 * one), or null: a tool name (lower case, digits, `_`, `-`, at most 64, as the Messages API and
 * the frontmatter take it) that is no harness tool or domain, not `tool_search`, and without the
 * `__` of MCP tools.
 */
export function customToolNameProblem(name: string): string | null {
  if (!/^[a-z][a-z0-9_-]{0,63}$/.test(name))
    return "a tool name is a lower-case letter, then lower-case letters, digits, '_' or '-' (at most 64)";
  if (TOOL_NAMES.includes(name) || TOOL_DOMAINS.includes(name) || name === "tool_search")
    return `"${name}" is the harness's own; choose another name`;
  if (name.includes("__")) return "'__' separates an MCP server from its tool; use one '_'";
  return null;
}
