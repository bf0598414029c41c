/**
 * Remote MCP tools: each MCP server an agent's frontmatter lists (streamable HTTP, through the
 * official MCP TypeScript SDK) contributes its tools as `<server>__<tool>` in domain `mcp`, so
 * they pass through the same filters, hooks and caps as the harness's own. Tool lists are cached
 * per isolate for five minutes; a server that cannot be listed contributes nothing this turn
 * (logged, and returned with the reason, which the turn's system prompt tells the model: see
 * unavailable.ts), and a failed call is a tool error the model can read. The SDK's client is
 * loaded on an agent's first MCP use, not at every isolate's startup (client-sdk.ts).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AgentDefinition } from "../agents/identity.ts";
import type { McpServerConfig } from "../agents/identity-schema.ts";
import { envNamed } from "../config/env-lookup.ts";
import type { Tool, ToolResult } from "../loop/contracts.ts";
import { log } from "../platform/logging.ts";
import { currentTraceHeaders } from "../trace/current-span.ts";
import { type McpUnavailable, unavailableReason } from "./unavailable.ts";

/** A server ready to reach: its config, URL and request headers. */
export interface McpEndpoint {
  server: McpServerConfig;
  url: string;
  headers: Record<string, string>;
}

/** The agent's reachable MCP servers under `env` (a server whose urlVar is unset is skipped). */
export function mcpEndpoints(agent: AgentDefinition, env: object): McpEndpoint[] {
  const out: McpEndpoint[] = [];
  for (const server of agent.mcp) {
    const fromVar = server.urlVar ? envNamed(env, server.urlVar) : undefined;
    const url =
      server.url ?? (typeof fromVar === "string" && fromVar.trim() !== "" ? fromVar.trim() : null);
    if (!url) continue;
    const secret = server.authSecret ? envNamed(env, server.authSecret) : undefined;
    out.push({
      server,
      url,
      headers:
        typeof secret === "string" && secret !== "" ? { authorization: `Bearer ${secret}` } : {},
    });
  }
  return out;
}

async function withClient<T>(
  endpoint: McpEndpoint,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const { Client, StreamableHTTPClientTransport, jsonSchemaValidator } = await import(
    "./client-sdk.ts"
  );
  const client = new Client(
    { name: "a2a-edge-harness", version: "0.1.0" },
    { jsonSchemaValidator },
  );
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: { ...endpoint.headers, ...currentTraceHeaders() } },
  });
  await client.connect(transport);
  try {
    return await fn(client);
  } finally {
    await client.close().catch(() => {});
  }
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

const LIST_TTL_MS = 5 * 60_000;
/**
 * Tool lists by URL and credentials: a server reached without (or with other) credentials is
 * listed on its own, so a list read with one agent's token never stands in for another's call.
 */
const listed = new Map<string, { tools: ListedTool[]; at: number }>();
const listKey = (endpoint: McpEndpoint) =>
  `${endpoint.url}\n${endpoint.headers.authorization ?? ""}`;

/** `<server>__<tool>`, cut to the Messages API's 64 characters of [A-Za-z0-9_-]. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 64);
}

function render(result: { content?: unknown; isError?: unknown }): ToolResult {
  const blocks = Array.isArray(result.content)
    ? (result.content as Array<Record<string, unknown>>)
    : [];
  const text = blocks
    .map((b) =>
      b.type === "text" && typeof b.text === "string"
        ? b.text
        : b.type === "resource"
          ? JSON.stringify(b.resource).slice(0, 2_000)
          : `[${String(b.type)} content]`,
    )
    .join("\n");
  return {
    content: text || "(empty result)",
    ...(result.isError === true ? { isError: true } : {}),
  };
}

function asTool(endpoint: McpEndpoint, tool: ListedTool): Tool {
  const name = mcpToolName(endpoint.server.name, tool.name);
  return {
    name,
    domain: "mcp",
    description: `[MCP ${endpoint.server.name}] ${tool.description ?? tool.name}`.slice(0, 1_024),
    inputSchema: { type: "object", ...(tool.inputSchema as object) } as Tool["inputSchema"],
    async run(input) {
      try {
        return await withClient(endpoint, async (client) =>
          render(
            (await client.callTool({ name: tool.name, arguments: input })) as {
              content?: unknown;
              isError?: unknown;
            },
          ),
        );
      } catch (error) {
        return {
          content: `The MCP server ${endpoint.server.name} could not run ${tool.name}: ${error instanceof Error ? error.message : String(error)}`,
          isError: true,
        };
      }
    },
  };
}

/** An agent's MCP tools this turn, and the servers that could not list theirs. */
export interface McpToolset {
  tools: Tool[];
  /** By server name. */
  unavailable: McpUnavailable[];
}

/** The MCP tools of `agent` (cached lists; unreachable servers contribute none, and are named). */
export async function mcpTools(agent: AgentDefinition, env: object): Promise<McpToolset> {
  const unavailable: McpUnavailable[] = [];
  const lists = await Promise.all(
    mcpEndpoints(agent, env).map(async (endpoint) => {
      const hit = listed.get(listKey(endpoint));
      let tools = hit && Date.now() - hit.at < LIST_TTL_MS ? hit.tools : null;
      if (!tools) {
        try {
          tools = await withClient(
            endpoint,
            async (client) => (await client.listTools()).tools as ListedTool[],
          );
          listed.set(listKey(endpoint), { tools, at: Date.now() });
        } catch (error) {
          log("warn", "MCP server not listed", {
            server: endpoint.server.name,
            error: String(error),
          });
          unavailable.push({
            server: endpoint.server.name,
            reason: await unavailableReason(error),
          });
          return [];
        }
      }
      const allowed = endpoint.server.tools;
      return tools
        .filter((t) => !allowed || allowed.includes(t.name))
        .map((t) => asTool(endpoint, t));
    }),
  );
  unavailable.sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
  return { tools: lists.flat(), unavailable };
}
