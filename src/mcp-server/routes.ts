/**
 * The MCP face of every agent, pinned:
 *   POST /agents/<name>/mcp                                   MCP Streamable HTTP (stateless)
 *   GET, DELETE /agents/<name>/mcp                            405: no sessions, no server stream
 *   GET  /.well-known/oauth-protected-resource/agents/<name>/mcp   RFC 9728 resource metadata
 * Behind the same authentication, body limit and message rate as the A2A endpoints: the body is
 * read once at the edge (edge/face-call.ts: JSON only, 415 otherwise; nested no deeper than the
 * edge's bound, -32600 otherwise), a tools/call of send_message or reply counts as a message and
 * a call that holds its request (those, and get_task with wait) holds a stream lease
 * (users/rate-limit.ts); a batch, an unknown tool and an overlong progress token are refused
 * before the SDK reads the request (mcp-call.ts). A 401 names the resource metadata, as the MCP
 * authorization spec asks. Each request gets its own server and transport (answer.ts, loaded on
 * the isolate's first MCP request, not at every isolate's startup).
 */
import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { authenticate } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import { baseUrl } from "../config/public-url.ts";
import { agentEndpoint, agentNamed, internalErrorLogger } from "../edge/agent-request.ts";
import { edgeCall, faceCall } from "../edge/face-call.ts";
import { taskPort } from "../edge/task-port.ts";
import { bodyLimit } from "../platform/body-limit.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { limitRequests } from "../users/rate-limit.ts";
import { describeMcpCall, mcpRefusal, requestId } from "./mcp-call.ts";

const RESOURCE_METADATA = "/.well-known/oauth-protected-resource";

const mcpUrl = (c: Context<AppEnv>, name: string) => `${agentEndpoint(c, name)}mcp`;

/** Middleware: a 401 (from `authenticate`) points at the resource's metadata (RFC 9728 §5.1). */
function pointAtMetadata(): MiddlewareHandler<AppEnv> {
  return async function unauthorized(c, next) {
    await next();
    if (c.res.status !== 401) return;
    const metadata = `${baseUrl(c)}${RESOURCE_METADATA}/agents/${c.req.param("name")}/mcp`;
    c.res.headers.set("WWW-Authenticate", `Bearer resource_metadata="${metadata}"`);
  };
}

/** A JSON-RPC error answer of the MCP endpoint, with the request's id when known. */
const rpcError = (
  c: Context<AppEnv>,
  status: 200 | 400 | 405 | 415,
  code: number,
  message: string,
  id: string | number | null = null,
) =>
  c.json({ jsonrpc: "2.0", id, error: { code, message } }, status, {
    ...(status === 405 ? { Allow: "POST" } : {}),
  });

async function serveMcp(c: Context<AppEnv>): Promise<Response> {
  const agent = agentNamed(c, c.req.param("name") ?? "");
  const { body, refusal } = edgeCall(c, "faceCall");
  if (refusal?.status === 415)
    return rpcError(c, 415, -32000, `Unsupported Media Type: ${refusal.message}`);
  if (body === undefined) return rpcError(c, 400, -32700, "Parse error: the body is not JSON");
  if (refusal)
    return rpcError(c, 400, -32600, `Invalid Request: ${refusal.message}`, requestId(body));
  const refused = mcpRefusal(body);
  if (refused) return rpcError(c, refused.status, refused.code, refused.message, requestId(body));
  c.set("agent", agent.name);
  const { answerMcp } = await import("./answer.ts");
  return answerMcp(c.req.raw, body, taskPort(c, agent), {
    agent,
    skills:
      c.get("principal").via === "anonymous"
        ? agent.skills
        : [...agent.skills, ...agent.extendedSkills],
    waitSeconds: loadConfig(c.env).mcpWaitSeconds,
    onInternalError: internalErrorLogger(c),
    keepAliveMs: loadConfig(c.env).sseKeepaliveMs,
  });
}

/** Routes of the MCP face. */
export function mcpRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post(
    "/agents/:name/mcp",
    pointAtMetadata(),
    authenticate(),
    bodyLimit(),
    faceCall(describeMcpCall),
    limitRequests(),
    serveMcp,
  );
  app.on(["GET", "DELETE"], "/agents/:name/mcp", (c) =>
    rpcError(c, 405, -32000, "Method not allowed: this MCP server is stateless; POST requests"),
  );
  app.get(`${RESOURCE_METADATA}/agents/:name/mcp`, (c) => {
    const agent = agentNamed(c, c.req.param("name"));
    const { oidc } = loadConfig(c.env);
    return c.json({
      resource: mcpUrl(c, agent.name),
      resource_name: `${agent.name} (MCP)`,
      bearer_methods_supported: ["header"],
      ...(oidc ? { authorization_servers: [oidc.issuer] } : {}),
      resource_documentation: agentEndpoint(c, agent.name),
    });
  });
  return app;
}
