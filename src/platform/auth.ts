/**
 * Access to the A2A endpoints. When `A2A_API_KEY` is set, every endpoint (not the cards, which
 * stay public) requires `Authorization: Bearer <key>`; the comparison is constant-time. A failure
 * is a 401 JSON body (JSON-RPC shaped) with `WWW-Authenticate`, never a hint of what was wrong.
 * Every request gets an owner; until multi-user auth exists it is `anonymous`.
 */
import type { MiddlewareHandler } from "hono";
import { loadConfig } from "../config.ts";

/** The owner of requests without user accounts. */
export const ANONYMOUS = "anonymous";

const encoder = new TextEncoder();

/** Constant-time comparison of two secrets (their SHA-256 digests). */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const [ha, hb] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(a)),
    crypto.subtle.digest("SHA-256", encoder.encode(b)),
  ]);
  return crypto.subtle.timingSafeEqual(ha, hb);
}

/** Middleware: enforces A2A_API_KEY when configured and sets `owner`. */
export function requireApiKey(): MiddlewareHandler<{
  Bindings: Env;
  Variables: { owner: string };
}> {
  return async function apiKeyAuth(c, next) {
    const { a2aApiKey } = loadConfig(c.env);
    if (a2aApiKey !== undefined) {
      const header = c.req.header("Authorization") ?? "";
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      if (!match?.[1] || !(await sameSecret(match[1], a2aApiKey))) {
        c.header("WWW-Authenticate", 'Bearer realm="a2a"');
        return c.json(
          {
            jsonrpc: "2.0",
            id: null,
            error: { code: -32000, message: "Unauthorized: send Authorization: Bearer <key>" },
          },
          401,
        );
      }
    }
    c.set("owner", ANONYMOUS);
    await next();
  };
}
