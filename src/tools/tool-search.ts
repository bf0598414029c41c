/**
 * Tool search (domain `tools`): when the definitions of an agent's tools (the harness's, its tools
 * in code and its MCP servers') would take {@link TOOL_SHARE} (10 %) or more of the model's
 * context window (model/context-window.ts; tokens estimated at four characters, as
 * compaction does), the tools in code and the MCP tools (the deferrable ones) are deferred and
 * `tool_search` is offered to find and load them. The rule, per model turn: the harness's own
 * tools always stay loaded; then the deferrable tools this task used (found by a search or
 * called), at most {@link MAX_LOADED}, the most recent; then the others in listing order (the
 * tools in code, then the servers' order in the frontmatter and each server's) while the whole
 * definition list stays under the share; the rest are deferred. A deferred tool is left out of
 * the request only: called by its exact name it still runs (and is loaded from then on). What
 * the task loaded is kept in its hook state, so it survives a restart of the task object.
 */
import { z } from "zod";
import { definitionChars, ToolRegistry } from "../loop/calls/tool-registry.ts";
import type { HookState, Tool } from "../loop/contracts.ts";
import { contextWindowOf } from "../model/context-window.ts";
import { defineTool, requiredText, shapeOf } from "./input.ts";

/** The share of the model's context window tool definitions may take before tools are deferred. */
export const TOOL_SHARE = 0.1;
/** The search tool's name (and its hook-state namespace). */
export const TOOL_SEARCH = "tool_search";
/** Most deferrable tools a task keeps loaded by searching or calling them (the newest win). */
export const MAX_LOADED = 30;
const LOADED_KEY = "loaded";
const DEFAULT_MATCHES = 5;
const MAX_MATCHES = 10;
const DESCRIPTION_CHARS = 300;

/** The deferrable tools this task loaded, oldest first. */
export function loadedTools(state: HookState): string[] {
  const value = state.get<unknown>(TOOL_SEARCH, LOADED_KEY);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function load(state: HookState, names: readonly string[]): void {
  const kept = loadedTools(state).filter((name) => !names.includes(name));
  state.set(TOOL_SEARCH, LOADED_KEY, [...kept, ...names].slice(-MAX_LOADED));
}

/** The domains whose tools may be deferred: the agent's tools in code and its MCP servers'. */
const DEFERRABLE: ReadonlySet<string> = new Set(["custom", "mcp"]);
const deferrable = (tool: Tool) => DEFERRABLE.has(tool.domain);

/** Where a deferrable tool comes from, as the summary names it. */
const sourceOf = (tool: Tool) =>
  tool.domain === "mcp" ? `of the MCP server ${tool.name.split("__")[0] ?? tool.name}` : "in code";

/** `3 of the 200 tools of the MCP server many; ...` for the sources that have deferred tools. */
function deferredSummary(deferred: readonly Tool[], all: readonly Tool[]): string {
  const total = new Map<string, number>();
  for (const tool of all) total.set(sourceOf(tool), (total.get(sourceOf(tool)) ?? 0) + 1);
  const left = new Map<string, number>();
  for (const tool of deferred) left.set(sourceOf(tool), (left.get(sourceOf(tool)) ?? 0) + 1);
  return [...left]
    .map(([source, count]) => `${count} of the ${total.get(source)} tools ${source}`)
    .join("; ");
}

function termsOf(query: string): string[] {
  const terms = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term.length >= 2);
  return [...new Set(terms)].slice(0, 16);
}

/** How well `tool` matches: its exact name wins; else 3 a term in the name, 1 in the rest. */
function scoreOf(tool: Tool, query: string, terms: readonly string[]): number {
  const name = tool.name.toLowerCase();
  if (name === query) return 1_000;
  const rest =
    `${tool.description} ${Object.keys(tool.inputSchema.properties ?? {}).join(" ")}`.toLowerCase();
  let score = 0;
  for (const term of terms) {
    if (name.includes(term)) score += 3;
    if (rest.includes(term)) score += 1;
  }
  return score;
}

const clip = (text: string) =>
  text.length > DESCRIPTION_CHARS ? `${text.slice(0, DESCRIPTION_CHARS)}…` : text;

/** The `tool_search` tool over `deferred` (the agent's deferrable tools are `all`). */
function searchTool(deferred: readonly Tool[], all: readonly Tool[], state: HookState): Tool {
  const summary = deferredSummary(deferred, all);
  return defineTool({
    name: TOOL_SEARCH,
    domain: "tools",
    description: `Finds and loads tools that are not in your tool list yet (left out to save context): ${summary}. Give keywords for what you need to do, or a tool's exact name; the best matches are loaded and can be called from your next turn. Search before concluding that a tool you need does not exist.`,
    input: () =>
      z.strictObject({
        query: requiredText(200).describe("Keywords for what you need to do, or a tool's name."),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_MATCHES)
          .optional()
          .describe(`Most tools to load (default ${DEFAULT_MATCHES}, at most ${MAX_MATCHES}).`),
      }),
    async run({ query, limit }) {
      const wanted = query.trim().toLowerCase();
      const terms = termsOf(wanted);
      const found = deferred
        .map((tool, index) => ({ tool, index, score: scoreOf(tool, wanted, terms) }))
        .filter((match) => match.score > 0)
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .slice(0, limit ?? DEFAULT_MATCHES)
        .map((match) => match.tool);
      if (found.length === 0)
        return {
          content: `No tool that is not loaded yet matches "${query}". Not loaded: ${summary}. Try other words (what the tool acts on, or what it returns); the tools in your list are loaded already.`,
        };
      load(
        state,
        found.map((tool) => tool.name),
      );
      const lines = found.map(
        (tool) => `- ${tool.name}: ${clip(tool.description)} Input: ${shapeOf(tool.inputSchema)}`,
      );
      return {
        content: `Loaded ${found.length} tool${found.length === 1 ? "" : "s"}; call ${found.length === 1 ? "it" : "them"} from your next turn:\n${lines.join("\n")}`,
      };
    },
  });
}

/** A deferrable tool: runs as itself, and is kept loaded from then on. */
function loadingOnCall(tool: Tool, state: HookState): Tool {
  return {
    ...tool,
    run(input, context) {
      load(state, [tool.name]);
      return tool.run(input, context);
    },
  };
}

/**
 * `registry` as the model gets it this turn under model `model`: unchanged while its definitions
 * take less than {@link TOOL_SHARE} of the window, else with deferrable tools deferred (by the rule
 * above) and `tool_search` added. `state` is the task's hook state (what it loaded).
 * `budget` (CONTEXT_TOKEN_BUDGET, when given) also caps the definitions at half of it: compaction
 * can only keep a request under the budget if the tools leave room for the conversation (on a
 * 1M-token model 10 % of the window would be more than the whole default budget).
 */
export function withToolSearch(
  registry: ToolRegistry,
  model: string,
  state: HookState,
  budget = Number.POSITIVE_INFINITY,
): ToolRegistry {
  const tools = registry.all();
  const limit = Math.min(contextWindowOf(model) * TOOL_SHARE, budget / 2);
  const fits = (chars: number) => Math.ceil(chars / 4) < limit;
  if (fits(definitionChars(tools))) return registry;
  const movable = tools.filter(deferrable);
  const loaded = new Set(loadedTools(state));
  const kept = new Set(
    tools.filter((tool) => !deferrable(tool) || loaded.has(tool.name)).map((t) => t.name),
  );
  // The most the search tool can take: its description with every deferrable tool deferred.
  const probe = searchTool(movable, movable, state);
  let chars = definitionChars([...tools.filter((tool) => kept.has(tool.name)), probe]);
  for (const tool of movable) {
    if (kept.has(tool.name)) continue;
    const size = definitionChars([tool]) - 1; // its definition and a comma
    if (!fits(chars + size)) break;
    chars += size;
    kept.add(tool.name);
  }
  const deferred = movable.filter((tool) => !kept.has(tool.name));
  if (deferred.length === 0) return registry;
  return new ToolRegistry(
    [
      ...tools.map((tool) => (deferrable(tool) ? loadingOnCall(tool, state) : tool)),
      searchTool(deferred, movable, state),
    ],
    deferred.map((tool) => tool.name),
  );
}
