/**
 * The names of the harness's tools and tool domains, as data: what frontmatter `tools.allow`,
 * `tools.deny` and `tools.requireApproval` may name (beside an agent's MCP tools,
 * `<server>__<tool>`). Pure, so the IDENTITY.md parser (and the Node build script) can check
 * names without loading the tools; a unit test keeps it equal to the catalog.
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
  "mcp",
];
