/**
 * Reads an HTTP+JSON (REST) request once, at the edge, before the rate limits: the operation its
 * path names, parsed from the path as the router decoded it (the route's `rest` parameter:
 * platform/route-match.ts), never from the raw URL, so `messag%65:send` counts as the send it is
 * served as; and the media type of a body the operation reads (JSON only: platform/content-type.ts;
 * otherwise ContentTypeNotSupported, HTTP 415). The result is the request's {@link RestCall}
 * (c.var.restCall), which the rate limits, the log line and the binding read; a path that names no
 * operation, or a body that is not JSON, is answered by the binding after the route's own checks
 * (agent, access), so those keep their order.
 */
import { RestContentTypeNotSupportedError } from "@a2a-js/sdk/errors";
import type { MiddlewareHandler } from "hono";
import { nonJsonBody } from "../../platform/content-type.ts";
import type { AppEnv, RestCall } from "../../protocol/app-types.ts";
import { httpRouteOf, parseRestPath } from "./rest-paths.ts";

/** The call `method` makes at `path` (relative to the agent's base URL) with `request`'s body. */
export function readRestCall(method: string, path: string, request: Request): RestCall {
  const route = parseRestPath(method, path);
  if (!route) return { route, method: null, sends: false, streams: false, failure: null };
  const http = httpRouteOf(route);
  const label = `${method} ${http.label}`;
  const notJson = http.from === "body" ? nonJsonBody(request) : null;
  if (notJson) {
    const failure = new RestContentTypeNotSupportedError({ message: notJson, statusCode: 415 });
    return { route, method: label, sends: false, streams: false, failure };
  }
  const { sends, streaming } = http.method;
  return { route, method: label, sends, streams: streaming, failure: null };
}

/** Middleware: reads the REST call into `c.var.restCall` (after authentication, before limits). */
export function restCall(): MiddlewareHandler<AppEnv> {
  return async function readCall(c, next) {
    c.set("restCall", readRestCall(c.req.method, c.req.param("rest") ?? "", c.req.raw));
    await next();
  };
}
