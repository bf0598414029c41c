/**
 * What the router matched, as every decision at the edge reads it: the matched route's pattern and
 * its parameters, which the router decoded. The raw URL path is never read for a decision: Hono
 * routes on the percent-decoded path, so `/agents/%77riter/messag%65:send` is served as the route
 * `/agents/:name/:rest` with name `writer` and rest `message:send`, and a check on the raw path
 * would judge a request other than the one served (the rate limits, the stream lease, a delegation
 * token's audience, the shape of an error). Pure: reads the request context only.
 */
import type { Context } from "hono";
import { matchedRoutes, routePath } from "hono/route";

/** The pattern every route of one agent's endpoints begins with (`/agents/:name/...`). */
export const AGENT_ROUTE = "/agents/:name";

/** The route of one file of a caller's workspace (the files API, api/workspace-files-routes.ts). */
export const WORKSPACE_FILE_ROUTE = "/api/workspaces/:agent/files/*";

/** The routes of the JSON-RPC endpoints: the default agent's and each agent's (with or without `/`). */
const JSON_RPC_ROUTES: ReadonlySet<string> = new Set(["/", `${AGENT_ROUTE}/`, AGENT_ROUTE]);

/** The agent the matched route names, as the router decoded it; null for any other route. */
export function routeAgent(c: Context): string | null {
  const path = routePath(c);
  if (path !== AGENT_ROUTE && !path.startsWith(`${AGENT_ROUTE}/`)) return null;
  return c.req.param("name") ?? null;
}

/**
 * Whether the router matched one of `patterns` for the request (readable from a middleware
 * mounted before those routes: the router matches every route of a request at once).
 */
export function matchesRoute(c: Context, patterns: readonly string[]): boolean {
  return matchedRoutes(c).some((route) => patterns.includes(route.path));
}

/** Whether the request is a POST to a JSON-RPC endpoint (its errors take the JSON-RPC shape). */
export function isJsonRpcRoute(c: Context): boolean {
  return c.req.method === "POST" && JSON_RPC_ROUTES.has(routePath(c));
}
