/**
 * The files API's URLs, pinned: `/api/workspaces/<agent>/files` lists the caller's workspace of
 * an agent, `/api/workspaces/<agent>/files/<path>` is one file (each path segment
 * percent-encoded); an anonymous caller names its conversation with `?contextId=<id>`. The route
 * (api/workspace-files-routes.ts) serves them; a task's attached files and its metadata link to
 * them. Pure: no I/O.
 */

/** The path of `agent`'s files route (the listing). */
export function filesPath(agent: string): string {
  return `/api/workspaces/${encodeURIComponent(agent)}/files`;
}

/**
 * The absolute URL of the listing (no `path`) or of one file of `agent`'s workspace, under
 * `base` (no trailing slash), for the caller of conversation `contextId` when it is anonymous.
 */
export function filesUrl(
  base: string,
  agent: string,
  options: { path?: string; contextId?: string } = {},
): string {
  const file = options.path ? `/${options.path.split("/").map(encodeURIComponent).join("/")}` : "";
  const query = options.contextId ? `?contextId=${encodeURIComponent(options.contextId)}` : "";
  return `${base}${filesPath(agent)}${file}${query}`;
}
