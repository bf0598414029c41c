/**
 * The tools one agent may call, after the deployment's and the agent's filters. The loop asks it
 * for the API definitions and runs calls through it; an unknown tool is a tool error the model
 * can read, never an exception. Tools may be deferred (see tools/tool-search.ts): a deferred tool
 * is left out of the names and definitions the model is sent, yet still runs when called.
 */
import type { Tool as ApiTool } from "@anthropic-ai/sdk/resources/messages/messages";
import type { Tool, ToolContext, ToolResult } from "../contracts.ts";

/** Frontmatter-style filter: `allow` (null = everything) then `deny`. */
export interface ToolFilter {
  allow: readonly string[] | null;
  deny: readonly string[];
}

const matches = (tool: Tool, names: readonly string[]) =>
  names.includes(tool.name) || names.includes(tool.domain);

/** A tool's definition for the Messages API `tools` parameter. */
export function toolDefinition(tool: Tool): ApiTool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}

/**
 * Definitions' lengths as JSON, by input schema object, then name and description: a definition
 * never changes, so each is measured once, including the MCP tools and the loading wrappers that
 * are made anew each turn around the same listed schema.
 */
const definitionLengths = new WeakMap<object, Map<string, number>>();

/** The length of one tool's definition as JSON, measured once. */
function definitionLength(tool: Tool): number {
  const schema: object = tool.inputSchema;
  let byText = definitionLengths.get(schema);
  if (!byText) {
    byText = new Map();
    definitionLengths.set(schema, byText);
  }
  const key = `${tool.name}\n${tool.description}`;
  let length = byText.get(key);
  if (length === undefined) {
    length = JSON.stringify(toolDefinition(tool)).length;
    byText.set(key, length);
  }
  return length;
}

/** The length of `tools`' definitions written as one JSON array (what the prompt's estimate reads). */
export function definitionChars(tools: readonly Tool[]): number {
  let chars = 2 + Math.max(0, tools.length - 1); // the brackets and the commas
  for (const tool of tools) chars += definitionLength(tool);
  return chars;
}

/** An immutable set of tools. */
export class ToolRegistry {
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #deferred: ReadonlySet<string>;

  /** `deferred`: names of tools that run but are not offered to the model. */
  constructor(tools: readonly Tool[] = [], deferred: Iterable<string> = []) {
    this.#tools = new Map(tools.map((t) => [t.name, t]));
    this.#deferred = new Set(deferred);
  }

  /** A registry holding only the tools the filter lets through (by tool name or domain). */
  filter(filter: ToolFilter): ToolRegistry {
    return new ToolRegistry(
      [...this.#tools.values()].filter(
        (t) => (filter.allow === null || matches(t, filter.allow)) && !matches(t, filter.deny),
      ),
      this.#deferred,
    );
  }

  /** Every tool, offered or deferred, in catalog order. */
  all(): Tool[] {
    return [...this.#tools.values()];
  }

  /** How many tools are deferred. */
  deferredCount(): number {
    return [...this.#deferred].filter((name) => this.#tools.has(name)).length;
  }

  /** Names of the tools offered to the model, sorted. */
  names(): string[] {
    return this.#offered()
      .map((t) => t.name)
      .sort();
  }

  /** Definitions for the Messages API `tools` parameter (deferred tools left out). */
  definitions(): ApiTool[] {
    return this.#offered().map(toolDefinition);
  }

  /** The length of {@link definitions} as JSON, without writing it. */
  definitionChars(): number {
    return definitionChars(this.#offered());
  }

  /**
   * Whether a call of `name` cut off by a restart may simply run again: its tool only reads, or
   * there is no such tool (the call only ever got an error).
   */
  rerunnable(name: string): boolean {
    const tool = this.#tools.get(name);
    return tool === undefined || tool.readOnly === true;
  }

  /** Runs a call (a deferred tool too); unknown tools and thrown errors become error results. */
  async run(name: string, input: unknown, context: ToolContext): Promise<ToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) {
      const deferred = this.deferredCount();
      const more =
        deferred > 0 ? ` ${deferred} more are not loaded: find them with tool_search.` : "";
      return {
        content: `Unknown tool "${name}". Available: ${this.names().join(", ") || "none"}.${more}`,
        isError: true,
      };
    }
    // The model's input is JSON: an object here is a record of fields (an array fails the tool's
    // own parse, as before).
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

  #offered(): Tool[] {
    return [...this.#tools.values()].filter((t) => !this.#deferred.has(t.name));
  }
}
