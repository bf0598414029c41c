/**
 * A small MCP server (streamable HTTP, stateless) on 127.0.0.1 for the tests, built with the
 * official MCP TypeScript SDK. Tools: `lookup` (a definition), `fail` (a tool error), `long`
 * (200 lines, for output compaction), `stats` (with an `outputSchema`: a client must validate its
 * structured content, which a Worker cannot do with ajv). Under the path `/many` it is another server, of
 * {@link MANY_TOOLS} tools (for tool search): 199 record operations, then `weather_forecast`.
 * With `token`, requests without `Authorization: Bearer <token>` get 401. Node only.
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
  server.registerTool(
    "stats",
    {
      description: "Counts the pages about a term.",
      inputSchema: { term: z.string() },
      outputSchema: { term: z.string(), pages: z.number().int() },
    },
    async ({ term }) => {
      calls.push({ tool: "stats", args: { term } });
      const structuredContent = { term, pages: term.length };
      return {
        content: [{ type: "text", text: JSON.stringify(structuredContent) }],
        structuredContent,
      };
    },
  );
  return server;
}

/** How many tools the server under `/many` has. */
export const MANY_TOOLS = 200;

const SUBJECTS = ["invoice", "shipment", "customer", "supplier", "warehouse", "contract", "ledger"];

function manyToolsServer(calls: FakeMcpServer["calls"]): McpServer {
  const server = new McpServer({ name: "fake-many", version: "1.0.0" });
  for (let i = 0; i < MANY_TOOLS - 1; i++) {
    const subject = SUBJECTS[i % SUBJECTS.length] ?? "record";
    const name = `${subject}_operation_${String(i).padStart(3, "0")}`;
    server.registerTool(
      name,
      {
        description: `Runs operation ${i} on ${subject} records of the back office: reads the ${subject} named by id, checks it against the audit rules of the period, and returns the fields that changed since the last run, with who changed them and when. Use only when asked about ${subject} ${i}.`,
        inputSchema: {
          id: z.string().describe(`The ${subject}'s id`),
          period: z.string().optional().describe("The audit period, e.g. 2026-Q1"),
        },
      },
      async ({ id }) => {
        calls.push({ tool: name, args: { id } });
        return { content: [{ type: "text", text: `${name} on ${id}: nothing changed.` }] };
      },
    );
  }
  server.registerTool(
    "weather_forecast",
    {
      description: "Forecast the weather of a city for the next days.",
      inputSchema: { city: z.string().describe("The city") },
    },
    async ({ city }) => {
      calls.push({ tool: "weather_forecast", args: { city } });
      return { content: [{ type: "text", text: `Forecast for ${city}: sunny, 24 °C.` }] };
    },
  );
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
    const server = req.url?.startsWith("/many") ? manyToolsServer(calls) : mcpServer(calls);
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
