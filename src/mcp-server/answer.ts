/**
 * Answers one request of the MCP face: a server of the agent's tools (tools.ts) connected to the
 * SDK's web-standard Streamable HTTP transport (stateless: no session ids), handed the body the
 * edge parsed. Imported only by `await import()` from routes.ts, so that the SDK's server, and
 * the zod schemas of its modules and of the tools, are evaluated on an isolate's first MCP
 * request rather than at every isolate's startup.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { TaskPort } from "../edge/task-port.ts";
import { type McpToolsOptions, mcpServer } from "./tools.ts";

/** The transport's options besides the session: its SSE keepalive, in ms. */
export interface McpAnswerOptions extends McpToolsOptions {
  keepAliveMs: number;
}

/** The MCP answer to `request`, whose JSON body the edge already read as `body`. */
export async function answerMcp(
  request: Request,
  body: unknown,
  port: TaskPort,
  { keepAliveMs, ...options }: McpAnswerOptions,
): Promise<Response> {
  const server = mcpServer(port, options);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    keepAliveMs,
  });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody: body });
}
