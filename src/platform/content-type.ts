/**
 * Which request bodies count as JSON, and the guard that refuses the rest. A body is JSON when its
 * `Content-Type` is `application/json`, `application/a2a+json` or another `+json` type; a body sent
 * with another type, or with none, is refused (415). The reason is cross-site requests: a page on
 * another site can POST `text/plain`, a form or a typeless body (a Blob, an ArrayBuffer,
 * `sendBeacon`) with the visitor's cookies and no CORS preflight, but not JSON. Behind Cloudflare
 * Access, whose cookie authenticates the visitor, every state-changing route that reads JSON must
 * therefore refuse any other type. A request without a body (none, or `Content-Length: 0`) has
 * nothing to refuse here; from another site it needs an `Authorization` header (auth/cross-site.ts).
 * Every face reads these rules: the A2A bindings (a2a/jsonrpc/rpc-call.ts,
 * a2a/rest/rest-call.ts) and MCP and AG-UI (edge/face-call.ts) each answer in their own error shape;
 * the REST API under `/api/` is guarded by {@link jsonBodyOnly} (worker.ts), but for the document
 * uploads, which take Markdown by PUT, a method no other site can send without a preflight. Pure
 * but for the middleware.
 */
import type { MiddlewareHandler } from "hono";
import { HttpError } from "./http-error.ts";
import { matchesRoute } from "./route-match.ts";

/** The `type/subtype` of a media type header value, lower case, without parameters. */
export function baseMediaType(value: string | null | undefined): string {
  return (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** True when a body with this `Content-Type` is JSON: `application/json` or any `+json` type. */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  const type = baseMediaType(contentType);
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** True when the request carries a body: one of unknown length, or a non-empty one. */
function hasBody(request: Request): boolean {
  return request.body !== null && request.headers.get("content-length") !== "0";
}

/**
 * Why the request's body may not be read as JSON, for the caller: null when it may (no body, or a
 * body sent as JSON).
 */
export function nonJsonBody(request: Request): string | null {
  if (!hasBody(request)) return null;
  const type = request.headers.get("content-type");
  if (isJsonContentType(type)) return null;
  return type
    ? `the body must be sent as JSON (Content-Type: application/json), not ${type.slice(0, 100)}`
    : "the body must be sent as JSON (Content-Type: application/json); it has no Content-Type";
}

/**
 * Middleware: a request whose body is not sent as JSON gets a 415 (the REST error shape), unless
 * the router matched one of `except` for it (patterns of routes that take other bodies).
 */
export function jsonBodyOnly(except: readonly string[] = []): MiddlewareHandler {
  return async function refuseNonJson(c, next) {
    const problem = nonJsonBody(c.req.raw);
    if (problem && !matchesRoute(c, except)) throw new HttpError(415, problem);
    await next();
  };
}
