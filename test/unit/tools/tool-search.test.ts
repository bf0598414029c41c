import { describe, expect, it, vi } from "vitest";
import {
  definitionChars,
  ToolRegistry,
  toolDefinition,
} from "../../../src/loop/calls/tool-registry.ts";
import type { HookState, Tool } from "../../../src/loop/contracts.ts";
import { estimateTokens } from "../../../src/loop/prompt/compaction.ts";
import {
  CONTEXT_WINDOWS,
  contextWindowOf,
  DEFAULT_CONTEXT_WINDOW,
} from "../../../src/model/context-window.ts";
import { allTools } from "../../../src/tools/catalog.ts";
import {
  loadedTools,
  MAX_LOADED,
  TOOL_SEARCH,
  TOOL_SHARE,
  withToolSearch,
} from "../../../src/tools/tool-search.ts";
import { toolContext } from "../../helpers/tool-context.ts";

/** An unknown model: the default window (200,000 tokens), so 20,000 tokens of tools. */
const MODEL = "some-model";
const LIMIT = DEFAULT_CONTEXT_WINDOW * TOOL_SHARE;

function memoryState(): HookState {
  const store = new Map<string, unknown>();
  return {
    get: <T>(hook: string, key: string) => store.get(`${hook}/${key}`) as T | undefined,
    set: (hook, key, value) => void store.set(`${hook}/${key}`, structuredClone(value)),
  };
}

/** An MCP tool of server `docs` whose definition is about `chars` characters. */
function mcpTool(name: string, chars = 800, calls: string[] = []): Tool {
  return {
    name: `docs__${name}`,
    domain: "mcp",
    description: `[MCP docs] ${name.replaceAll("_", " ")}: ${"x".repeat(chars)}`,
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    run: async (input) => {
      calls.push(name);
      return { content: `${name} ran on ${String(input.id)}` };
    },
  };
}

/** The harness's tools plus `count` MCP tools (`weather_forecast` last). */
function registry(count: number, calls: string[] = []): ToolRegistry {
  const mcp = Array.from({ length: count - 1 }, (_, i) => mcpTool(`record_${i}`, 800, calls));
  return new ToolRegistry([...allTools().all(), ...mcp, mcpTool("weather_forecast", 20, calls)]);
}

const search = (tools: ToolRegistry, input: Record<string, unknown>) =>
  tools.run(TOOL_SEARCH, input, toolContext());

describe("context windows", () => {
  it("gives each model family its documented window, and unknown models the default", () => {
    const million = ["claude-sonnet-4-6", "claude-opus-4-6", "claude-opus-4-7", "claude-sonnet-5"];
    for (const model of million) expect(contextWindowOf(model), model).toBe(1_000_000);
    const older = [
      "claude-sonnet-4-5-20250929 claude-opus-4-5 claude-opus-4-1-20250805",
      "claude-sonnet-4-20250514 claude-haiku-4-5-20251001 claude-3-7-sonnet-latest",
      // Not Opus 4.6: a minor version is matched whole.
      "claude-opus-4-60",
    ].flatMap((line) => line.split(" "));
    for (const model of older) expect(contextWindowOf(model), model).toBe(200_000);
    expect(contextWindowOf("scripted")).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(CONTEXT_WINDOWS.every((row) => row.tokens >= DEFAULT_CONTEXT_WINDOW)).toBe(true);
  });
});

describe("tool search", () => {
  it("leaves the tools alone while their definitions fit in the share", () => {
    const tools = registry(5);
    expect(withToolSearch(tools, MODEL, memoryState())).toBe(tools);
  });

  it("defers MCP tools past the share, keeping every harness tool, and adds tool_search", () => {
    const full = registry(200);
    expect(estimateTokens(full.definitions())).toBeGreaterThan(LIMIT);
    const tools = withToolSearch(full, MODEL, memoryState());
    const definitions = tools.definitions();
    expect(estimateTokens(definitions)).toBeLessThan(LIMIT);
    const names = tools.names();
    expect(names).toEqual(expect.arrayContaining([...allTools().names(), TOOL_SEARCH]));
    expect(names).toContain("docs__record_0");
    expect(names).not.toContain("docs__weather_forecast");
    expect(tools.deferredCount()).toBe(200 - names.filter((n) => n.startsWith("docs__")).length);
    const searchTool = definitions.find((d) => d.name === TOOL_SEARCH);
    expect(searchTool?.description).toContain(
      `${tools.deferredCount()} of the 200 tools of the MCP server docs`,
    );
  });

  it("keeps the definitions under half of CONTEXT_TOKEN_BUDGET too, so compaction has room", () => {
    const full = registry(40);
    expect(withToolSearch(full, MODEL, memoryState())).toBe(full);
    const budget = 2 * (estimateTokens(allTools().definitions()) + 1_000);
    const tools = withToolSearch(full, MODEL, memoryState(), budget);
    expect(tools.deferredCount()).toBeGreaterThan(0);
    expect(estimateTokens(tools.definitions())).toBeLessThan(budget / 2);
  });

  it("defers every MCP tool when the harness's own tools take the share", () => {
    const huge: Tool = {
      name: "huge",
      domain: "workspace",
      description: "h".repeat(90_000),
      inputSchema: { type: "object" },
      run: async () => ({ content: "" }),
    };
    const tools = withToolSearch(
      new ToolRegistry([huge, ...registry(3).all()]),
      MODEL,
      memoryState(),
    );
    expect(tools.names()).toEqual(expect.arrayContaining(["huge", "read_file", TOOL_SEARCH]));
    expect(tools.names().filter((name) => name.startsWith("docs__"))).toEqual([]);
    expect(tools.deferredCount()).toBe(3);
  });

  it("loads what a search finds from the next turn on, best match first", async () => {
    const state = memoryState();
    const full = registry(200);
    const first = withToolSearch(full, MODEL, state);
    const found = await search(first, { query: "Weather forecast, please" });
    expect(found.isError).toBeUndefined();
    expect(found.content).toMatch(/^Loaded \d+ tools?; call/);
    expect(found.content.split("\n")[1]).toMatch(/^- docs__weather_forecast: \[MCP docs\]/);
    expect(found.content).toContain("Input: { id: string }");
    expect(loadedTools(state)).toContain("docs__weather_forecast");
    const next = withToolSearch(full, MODEL, state);
    expect(next.names()).toContain("docs__weather_forecast");
    expect(estimateTokens(next.definitions())).toBeLessThan(LIMIT);
  });

  it("matches a tool's exact name first and caps the matches", async () => {
    const tools = withToolSearch(registry(200), MODEL, memoryState());
    const exact = await search(tools, { query: "docs__record_198" });
    expect(exact.content.split("\n")[1]).toMatch(/^- docs__record_198:/);
    const many = await search(tools, { query: "record", limit: 3 });
    expect(many.content).toMatch(/^Loaded 3 tools/);
    expect((await search(tools, { query: "record", limit: 50 })).isError).toBe(true);
    expect((await search(tools, { query: "" })).isError).toBe(true);
  });

  it("answers a search that finds nothing with what is not loaded", async () => {
    const state = memoryState();
    const tools = withToolSearch(registry(200), MODEL, state);
    const none = await search(tools, { query: ".*(a+)+$ [[spaceship]]" });
    expect(none.content).toMatch(/^No tool that is not loaded yet matches/);
    expect(none.content).toContain("of the 200 tools of the MCP server docs");
    expect(loadedTools(state)).toEqual([]);
  });

  it("runs a deferred tool called by name, and keeps it loaded", async () => {
    const state = memoryState();
    const calls: string[] = [];
    const full = registry(200, calls);
    const tools = withToolSearch(full, MODEL, state);
    expect(tools.names()).not.toContain("docs__weather_forecast");
    const result = await tools.run("docs__weather_forecast", { id: "x" }, toolContext());
    expect(result.content).toBe("weather_forecast ran on x");
    expect(calls).toEqual(["weather_forecast"]);
    expect(withToolSearch(full, MODEL, state).names()).toContain("docs__weather_forecast");
  });

  it("keeps at most the newest MAX_LOADED tools loaded", async () => {
    const state = memoryState();
    const tools = withToolSearch(registry(200), MODEL, state);
    for (let i = 150; i < 150 + MAX_LOADED + 5; i++)
      await tools.run(`docs__record_${i}`, { id: "x" }, toolContext());
    const loaded = loadedTools(state);
    expect(loaded).toHaveLength(MAX_LOADED);
    expect(loaded[0]).toBe("docs__record_155");
    expect(loaded.at(-1)).toBe(`docs__record_${150 + MAX_LOADED + 4}`);
  });

  it("tells a model that calls an unknown tool that more can be searched", async () => {
    const tools = withToolSearch(registry(200), MODEL, memoryState());
    const unknown = await tools.run("nope", {}, toolContext());
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toMatch(/\d+ more are not loaded: find them with tool_search\.$/);
  });
});

describe("the tools' definitions measured without writing them", () => {
  it("is the length of the definitions written as JSON, for every catalog tool and none", () => {
    const tools = allTools().all();
    const registry = new ToolRegistry(tools, [tools[0]?.name ?? ""]);
    expect(registry.definitionChars()).toBe(JSON.stringify(registry.definitions()).length);
    expect(registry.definitionChars()).toBeLessThan(
      JSON.stringify(new ToolRegistry(tools).definitions()).length,
    );
    expect(new ToolRegistry([]).definitionChars()).toBe(2);
    // Measured again from the cache: the same.
    expect(registry.definitionChars()).toBe(JSON.stringify(registry.definitions()).length);
  });

  it("measures a tool made anew around the same schema (an MCP tool each turn) once", () => {
    const listed = mcpTool("lookup", 300);
    expect(definitionChars([listed])).toBe(JSON.stringify([toolDefinition(listed)]).length);
    const stringify = vi.spyOn(JSON, "stringify");
    const again = { ...listed, run: listed.run };
    expect(definitionChars([again])).toBe(definitionChars([listed]));
    expect(stringify).not.toHaveBeenCalled();
    // Another description over the same schema is another definition: measured on its own.
    const other = { ...listed, description: "shorter" };
    expect(definitionChars([other])).toBe(JSON.stringify([toolDefinition(other)]).length);
    stringify.mockRestore();
  });
});

describe("tool search over tools in code", () => {
  it("defers the agent's tools in code as it does MCP tools, listed first and named apart", async () => {
    const inCode = Array.from({ length: 40 }, (_, i) => ({
      ...mcpTool(`own_${i}`),
      name: `own_${i}`,
      domain: "custom",
      description: `own tool ${i}: ${"y".repeat(2000)}`,
    }));
    const mcp = Array.from({ length: 40 }, (_, i) => mcpTool(`record_${i}`));
    const tools = withToolSearch(
      new ToolRegistry([...allTools().all(), ...inCode, ...mcp]),
      MODEL,
      memoryState(),
    );
    const offered = tools.names();
    // Loaded in listing order while they fit: the tools in code before the MCP servers'.
    expect(offered).toContain("own_0");
    expect(offered).not.toContain("own_39");
    expect(offered.some((name) => name.startsWith("docs__"))).toBe(false);
    const description = tools.definitions().find((d) => d.name === TOOL_SEARCH)?.description;
    expect(description).toMatch(
      /\d+ of the 40 tools in code; 40 of the 40 tools of the MCP server docs/,
    );
    const found = await search(tools, { query: "own_39", limit: 1 });
    expect(found.content).toMatch(/^Loaded 1 tool; call it from your next turn:\n- own_39: /);
  });
});
