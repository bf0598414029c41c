/**
 * A small MCP server (streamable HTTP, stateless) on 127.0.0.1 for the tests, built with the
 * official MCP TypeScript SDK. Tools: `lookup` (a definition), `fail` (a tool error), `long`
 * (200 lines, for output compaction). With `token`, requests without `Authorization: Bearer
 * <token>` get 401. Node only.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** A running fake MCP server. */
export interface FakeMcpServer {
  url: string;
  /** Tool calls received, in order. */
  calls: Array<{ tool: string; args: unknown }>;
  close(): Promise<void>;
}

function mcpServer(calls: FakeMcpServer["calls"]): McpServer {
  const server = new McpServer({ name: "fake-docs", version: "1.0.0" });
  server.registerTool(
    "lookup",
    { description: "Look up a term in the docs.", inputSchema: { term: z.string() } },
    async ({ term }) => {
      calls.push({ tool: "lookup", args: { term } });
      return { content: [{ type: "text", text: `Definition of ${term}: a thing at the edge.` }] };
    },
  );
  server.registerTool("fail", { description: "Always fails." }, async () => {
    calls.push({ tool: "fail", args: {} });
    return { content: [{ type: "text", text: "the docs backend is down" }], isError: true };
  });
  server.registerTool("long", { description: "Returns 200 lines." }, async () => {
    calls.push({ tool: "long", args: {} });
    const text = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n");
    return { content: [{ type: "text", text }] };
  });
  return server;
}

/** Starts the server on 127.0.0.1 (port 0 = any free port). */
export async function startFakeMcp(options: { port?: number; token?: string } = {}) {
  const calls: FakeMcpServer["calls"] = [];
  const http: Server = createServer(async (req, res) => {
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") as unknown;
    const server = mcpServer(calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  } satisfies FakeMcpServer;
}
