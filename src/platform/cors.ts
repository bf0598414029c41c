/**
 * CORS for browser clients (an A2A inspector, the console on another origin): origins listed in
 * `CORS_ORIGINS` (comma list, or `*`) get the A2A headers through, preflights included; no list,
 * no CORS headers. Runs before authentication, so preflights never need credentials. CORS never
 * allows credentials (cookies): which state changes another site may send is auth/cross-site.ts's.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { loadConfig } from "../config/config.ts";
import type { AppEnv } from "../protocol/app-types.ts";

/** Middleware: CORS per `CORS_ORIGINS`. */
export function corsFromConfig(): MiddlewareHandler<AppEnv> {
  const handlers = new WeakMap<object, MiddlewareHandler>();
  return async function corsMiddleware(c, next) {
    const origins = loadConfig(c.env).corsOrigins;
    if (origins.length === 0) return next();
    let handler = handlers.get(c.env);
    if (!handler) {
      handler = cors({
        origin: (origin) => (origins.includes("*") || origins.includes(origin) ? origin : null),
        allowMethods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
        allowHeaders: [
          "Authorization",
          "Content-Type",
          "A2A-Version",
          "A2A-Extensions",
          "Last-Event-ID",
          "traceparent",
          "tracestate",
          "If-None-Match",
        ],
        exposeHeaders: ["Retry-After", "ETag", "WWW-Authenticate", "A2A-Version", "A2A-Extensions"],
        maxAge: 600,
      });
      handlers.set(c.env, handler);
    }
    return handler(c, next);
  };
}
