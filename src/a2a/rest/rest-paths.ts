/**
 * The HTTP+JSON binding's URL patterns under an agent's base URL (spec 11.3 for v1.0; the `v1/`
 * paths of spec v0.3.0 section 3.5), parsed into an operation. Pure: no I/O.
 */
import type { RestRoute } from "../../protocol/app-types.ts";

/** The REST path patterns, for the route table and error messages. */
export const REST_PATH_PATTERN =
  "(?:v1/)?(?:message:send|message:stream|tasks|tasks/.+|extendedAgentCard|card)";

const TASK_ID = /^[^/:]{1,256}$/;

/** Whether the operation reads a JSON body: a message sent, a push config created. */
export function readsBody(route: RestRoute): boolean {
  return route.op === "send" || (route.op === "push" && route.action === "create");
}

/** Parses `<method> <path>` (path relative to the agent's base URL), or null when it is not a REST call. */
export function parseRestPath(method: string, path: string): RestRoute | null {
  const legacy = path.startsWith("v1/");
  const version = legacy ? "0.3" : "1.0";
  const rest = legacy ? path.slice(3) : path;
  if (rest === "message:send" && method === "POST") return { version, op: "send", stream: false };
  if (rest === "message:stream" && method === "POST") return { version, op: "send", stream: true };
  if (rest === "tasks" && method === "GET" && !legacy) return { version, op: "list" };
  if ((rest === "extendedAgentCard" && !legacy) || (rest === "card" && legacy)) {
    return method === "GET" ? { version, op: "extendedCard" } : null;
  }
  const match =
    /^tasks\/([^/]+?)(?::(cancel|subscribe))?(\/pushNotificationConfigs(?:\/[^/]+)?)?$/.exec(rest);
  if (!match) return null;
  const [, rawId, action, push] = match;
  let id: string;
  try {
    id = decodeURIComponent(rawId ?? "");
  } catch {
    return null;
  }
  if (!TASK_ID.test(id)) return null;
  if (push !== undefined) {
    if (action !== undefined) return null;
    const rawConfig = push.slice("/pushNotificationConfigs/".length);
    let configId: string | null = null;
    try {
      configId = rawConfig === "" ? null : decodeURIComponent(rawConfig);
    } catch {
      return null;
    }
    const pushAction =
      configId === null
        ? method === "POST"
          ? "create"
          : method === "GET"
            ? "list"
            : null
        : method === "GET"
          ? "get"
          : method === "DELETE"
            ? "delete"
            : null;
    return pushAction ? { version, op: "push", id, configId, action: pushAction } : null;
  }
  if (action === "cancel") return method === "POST" ? { version, op: "cancel", id } : null;
  if (action === "subscribe")
    return method === "POST" || method === "GET" ? { version, op: "subscribe", id } : null;
  return method === "GET" ? { version, op: "get", id } : null;
}
