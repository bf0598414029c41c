/**
 * What a tool is to the agent loop: a name the model calls, a JSON schema for its input, and a
 * function that returns text. Tool names are a contract with models and clients.
 */

/** What a tool returns to the model. `isError` results pass through hooks unchanged. */
export interface ToolResult {
  content: string;
  isError?: boolean;
}

/** Per-call facts a tool may use (never the whole Env). */
export interface ToolContext {
  taskId: string;
  contextId: string;
  agent: string;
  owner: string;
  signal: AbortSignal;
}

/** A tool the model can call. `domain` groups tools for TOOLS_ENABLED and frontmatter filters. */
export interface Tool {
  name: string;
  domain: string;
  description: string;
  inputSchema: { type: "object"; properties?: Record<string, unknown>; required?: string[] };
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}
