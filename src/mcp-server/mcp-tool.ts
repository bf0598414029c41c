/**
 * A tool of the MCP face, served by the MCP SDK's low-level `Server`: its name, title and
 * description, a zod object of its input, and its work. The input is the one declaration: what
 * `tools/list` shows is its JSON Schema (draft-07, as the input is read), made when a client lists
 * the tools, and what `tools/call` enforces is its parse. A call whose arguments fail it, or of a
 * tool the face does not have, is answered as a tool error in the words of the SDK's `McpServer`
 * ("MCP error -32602: Input validation error: Invalid arguments for tool ...", each field at fault
 * named by the SDK's own formatter); the work gets the parsed arguments and the request's extra.
 * No I/O of its own.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { getParseErrorMessage } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** The `extra` of a tool call: the client's abort signal, its `_meta`, the notification sender. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool as tools.ts declares it. */
export interface McpToolSpec<S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  run(args: z.output<S>, extra: CallExtra): Promise<CallToolResult>;
}

/** A tool as the server serves it: its listing, and a call of it with unchecked arguments. */
export interface McpTool {
  name: string;
  listing(): Tool;
  call(args: unknown, extra: CallExtra): Promise<CallToolResult>;
}

const toolError = (text: string): CallToolResult => ({
  content: [{ type: "text", text }],
  isError: true,
});

/** An invalid-params refusal as a tool error, worded as `McpServer` words it. */
const invalidParams = (message: string) =>
  toolError(new McpError(ErrorCode.InvalidParams, message).message);

/** The JSON Schema `tools/list` shows for `input`: an object's, as a client fills it in. */
function listedSchema(input: z.ZodObject): Tool["inputSchema"] {
  const schema = z.toJSONSchema(input, { target: "draft-7", io: "input" });
  // A property schema of a zod object is never the boolean form; `true` would mean "anything".
  const fields = Object.entries(schema.properties ?? {}).map(([name, field]) => [
    name,
    typeof field === "boolean" ? {} : field,
  ]);
  return { ...schema, type: "object", properties: Object.fromEntries(fields) };
}

/** A tool from its spec (see the module header). */
export function mcpTool<S extends z.ZodObject>(spec: McpToolSpec<S>): McpTool {
  const { name, title, description, input, run } = spec;
  return {
    name,
    listing: () => ({
      name,
      title,
      description,
      inputSchema: listedSchema(input),
      // No MCP task augmentation: a call answers with its result (within the face's wait bound).
      execution: { taskSupport: "forbidden" },
    }),
    async call(args, extra) {
      const parsed = await input.safeParseAsync(args ?? {});
      if (!parsed.success)
        return invalidParams(
          `Input validation error: Invalid arguments for tool ${name}: ${getParseErrorMessage(parsed.error)}`,
        );
      return run(parsed.data, extra);
    },
  };
}

/** Serves `tools` on `server` (which must declare the `tools` capability). */
export function serveTools(server: Server, tools: readonly McpTool[]): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => tool.listing()),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    return tool ? tool.call(args, extra) : invalidParams(`Tool ${name} not found`);
  });
}
