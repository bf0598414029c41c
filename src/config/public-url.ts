/**
 * The deployment's public base URL, the start of every URL the harness gives out (cards, the
 * roster, the MCP resource metadata, policy links, a webhook's task link, the audience a
 * delegation token must name): `PUBLIC_URL` (kept without its trailing slashes, config.ts), else
 * the origin of the request being answered. Never ends with a slash. Pure.
 */
import { type Config, loadConfig } from "./config.ts";

/** What {@link baseUrl} reads of a request's context (a Hono `Context`). */
interface RequestContext {
  env: object;
  req: { url: string };
}

/** The base URL under `config` for a request to `requestUrl`. */
export function publicBaseUrl(config: Pick<Config, "publicUrl">, requestUrl: string): string {
  return config.publicUrl ?? new URL(requestUrl).origin;
}

/** The base URL of the request `c` answers. */
export const baseUrl = (c: RequestContext): string => publicBaseUrl(loadConfig(c.env), c.req.url);

/** The endpoint of the agent `name` under `base`: `<base>/agents/<name>/`. */
export const agentUrl = (base: string, name: string): string => `${base}/agents/${name}/`;
