/**
 * The MCP TypeScript SDK's client, as the harness uses it: the client, its streamable HTTP
 * transport and the errors they throw. Imported only by `await import()` (tools.ts,
 * unavailable.ts), so that the SDK's modules, and the hundreds of zod schemas they build, are
 * evaluated on an agent's first MCP use rather than at every isolate's startup; a dynamic import
 * keeps every export of its module in the bundle, so these few names are one module's.
 */
export { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { McpError } from "@modelcontextprotocol/sdk/types.js";
export { jsonSchemaValidator } from "../platform/json-schema-validator.ts";
