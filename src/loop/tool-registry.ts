/**
 * The tools one agent may call, after the deployment's and the agent's filters. The loop asks it
 * for the API definitions and runs calls through it; an unknown tool is a tool error the model
 * can read, never an exception.
 */
import type { Tool as ApiTool } from "@anthropic-ai/sdk/resources/messages/messages";
import type { Tool, ToolContext, ToolResult } from "./contracts.ts";

/** Frontmatter-style filter: `allow` (null = everything) then `deny`. */
export interface ToolFilter {
  allow: readonly string[] | null;
  deny: readonly string[];
}

const matches = (tool: Tool, names: readonly string[]) =>
  names.includes(tool.name) || names.includes(tool.domain);

/** An immutable set of tools. */
export class ToolRegistry {
  readonly #tools: ReadonlyMap<string, Tool>;

  constructor(tools: readonly Tool[] = []) {
    this.#tools = new Map(tools.map((t) => [t.name, t]));
  }

  /** A registry holding only the tools the filter lets through (by tool name or domain). */
  filter(filter: ToolFilter): ToolRegistry {
    return new ToolRegistry(
      [...this.#tools.values()].filter(
        (t) => (filter.allow === null || matches(t, filter.allow)) && !matches(t, filter.deny),
      ),
    );
  }

  /** Tool names, sorted. */
  names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  /** Definitions for the Messages API `tools` parameter. */
  definitions(): ApiTool[] {
    return [...this.#tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema,
    }));
  }

  /** Runs a call; unknown tools and thrown errors become error results. */
  async run(name: string, input: unknown, context: ToolContext): Promise<ToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) {
      return {
        content: `Unknown tool "${name}". Available: ${this.names().join(", ") || "none"}.`,
        isError: true,
      };
    }
    const args =
      typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
    try {
      return await tool.run(args, context);
    } catch (error) {
      return {
        content: `Tool "${name}" failed: ${error instanceof Error ? error.message : String(error)}`,
        isError: true,
      };
    }
  }
}
