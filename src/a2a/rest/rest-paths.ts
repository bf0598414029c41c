/**
 * The HTTP+JSON binding's paths under an agent's base URL, as the method table lists them (each
 * method's route: a2a/methods.ts; spec 1.0.1 §11.3 for v1.0, the `v1/` paths of spec 0.3.0 §3.5.3
 * for v0.3), parsed into the method a request names and the path's variables. The first variable
 * of a path is a task id: decoded, 1 to 256 characters, no `/` or `:`. Pure: no I/O.
 */
import type { RestRoute } from "../../protocol/app-types.ts";
import type { HttpRoute } from "../method-entry.ts";
import { HTTP_ROUTES, httpRoute } from "../methods.ts";

/** The router's coarse filter of REST paths (the table decides which are operations). */
export const REST_PATH_PATTERN =
  "(?:v1/)?(?:message:send|message:stream|live|tasks|tasks/.+|extendedAgentCard|card)";

const TASK_ID = /^[^/:]{1,256}$/;

/** A route's path as a pattern, and the names of its variables in order. */
interface PathMatcher {
  route: HttpRoute;
  pattern: RegExp;
  vars: string[];
}

/** `tasks/{id}:cancel` as `^tasks/([^/:]+):cancel$`: the task id never holds `:`, later ones may. */
function matcher(route: HttpRoute): PathMatcher {
  const vars: string[] = [];
  const source = route.path
    .split(/(\{[A-Za-z]+\})/)
    .map((piece) => {
      const name = /^\{([A-Za-z]+)\}$/.exec(piece)?.[1];
      if (name === undefined) return piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      vars.push(name);
      return vars.length === 1 ? "([^/:]+)" : "([^/]+)";
    })
    .join("");
  return { route, pattern: new RegExp(`^${source}$`), vars };
}

const MATCHERS: readonly PathMatcher[] = HTTP_ROUTES.map(matcher);

/** The decoded variables of a path `match`, or null when one does not decode or is no task id. */
function decodedVars(found: PathMatcher, match: RegExpExecArray): Record<string, string> | null {
  const vars: Record<string, string> = {};
  for (const [i, name] of found.vars.entries()) {
    let value: string;
    try {
      value = decodeURIComponent(match[i + 1] ?? "");
    } catch {
      return null;
    }
    if (i === 0 && !TASK_ID.test(value)) return null;
    vars[name] = value;
  }
  return vars;
}

/** The table's route of a parsed `route` (it came from the table: there is one). */
export function httpRouteOf(route: RestRoute): HttpRoute {
  const found = httpRoute(route.version, route.name);
  if (!found) throw new Error(`no HTTP+JSON route ${route.version} ${route.name}`);
  return found;
}

/** The method `<verb> <path>` names (path relative to the agent's base URL), or null: none. */
export function parseRestPath(verb: string, path: string): RestRoute | null {
  for (const found of MATCHERS) {
    if (!found.route.verbs.includes(verb)) continue;
    const match = found.pattern.exec(path);
    if (!match) continue;
    const vars = decodedVars(found, match);
    return vars ? { version: found.route.version, name: found.route.name, vars } : null;
  }
  return null;
}
