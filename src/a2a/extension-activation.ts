/**
 * Which of the harness's opt-in A2A extensions a request activates, and the echo of them. A client
 * lists the extensions it wants in the `A2A-Extensions` header (comma-separated URIs, spec 1.0.1
 * §3.2.6); the server activates those it supports per request (today: task generations,
 * protocol/extensions.ts) and names them in the response's `A2A-Extensions` header, as the A2A
 * extension mechanism asks. Only A2A 1.0 requests activate them: v0.3's answers are rebuilt field by
 * field by its translators (protocol/v03/), which carry none of the draft's fields. Extensions the
 * cards declare but that need no activation (harness events, cost, answer echo) are always on.
 * {@link generationsActive} is the one switch of generations: when A2A 1.1 is released it is also
 * on for `A2A-Version: 1.1` (the same field names; the URI then only an alias). Pure: no I/O.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../protocol/app-types.ts";
import { GENERATIONS_EXTENSION } from "../protocol/extensions.ts";
import { requestedVersion } from "./version.ts";

/** The request header (and response header) that lists extensions. */
export const EXTENSIONS_HEADER = "A2A-Extensions";

/** The extensions a request may activate. */
const ACTIVATABLE: readonly string[] = [GENERATIONS_EXTENSION];

/** The extension URIs the request's `A2A-Extensions` header lists (repeated headers joined). */
export function requestedExtensions(request: Request): string[] {
  const header = request.headers.get(EXTENSIONS_HEADER) ?? "";
  return header
    .split(",")
    .map((uri) => uri.trim())
    .filter((uri) => uri !== "");
}

/** The extensions the request activates: those it asks for that the server activates per request. */
export function activatedExtensions(request: Request): string[] {
  if (requestedVersion(request) !== "1.0") return [];
  const requested = new Set(requestedExtensions(request));
  return ACTIVATABLE.filter((uri) => requested.has(uri));
}

/** Whether the request's answers carry task generations and honour their params. */
export const generationsActive = (request: Request): boolean =>
  activatedExtensions(request).includes(GENERATIONS_EXTENSION);

/** Middleware: names the extensions the request activated in the response's `A2A-Extensions`. */
export function echoExtensions(): MiddlewareHandler<AppEnv> {
  return async function echoActivated(c, next) {
    await next();
    const activated = activatedExtensions(c.req.raw);
    if (activated.length > 0) c.header(EXTENSIONS_HEADER, activated.join(", "));
  };
}
