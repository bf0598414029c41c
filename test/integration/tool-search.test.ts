/**
 * Tool search through the A2A endpoint: an agent (uploaded for the test) whose MCP server has 200
 * tools (test/fake-mcp, path `/many`) gets a first request whose tool definitions stay under 10 %
 * of its model's context window, with `tool_search` in place of the deferred tools; the scripted
 * model searches, the found tool is offered from the next turn and its call reaches the server.
 * An agent with few tools gets no tool search.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/loop/prompt/compaction.ts";
import { contextWindowOf } from "../../src/model/context-window.ts";
import { TOOL_SEARCH, TOOL_SHARE } from "../../src/tools/tool-search.ts";
import { sendTask, userMessage } from "../helpers/a2a.ts";
import { newUser } from "../helpers/as-user.ts";
import { modelRequests, offeredTools, scenario, toolResults } from "../helpers/fake-model.ts";
import { toolTurn as tool } from "../helpers/turns.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const MODEL = "claude-haiku-4-5";

/** Uploads an agent whose MCP server `many` has 200 tools; its name and how to remove it. */
async function manyToolsAgent(): Promise<{ name: string; remove(): Promise<void> }> {
  const admin = await newUser("admin");
  const name = `toolbox-${crypto.randomUUID().slice(0, 8)}`;
  const url = new URL("/many", env.DOCS_MCP_URL).href;
  const identity = [
    "---",
    `name: ${name}`,
    "description: An agent with a large MCP server, for the tool search test.",
    "version: 1.0.0",
    `model: ${MODEL}`,
    "maxTurns: 10",
    "maxTokens: 1024",
    "mcp:",
    "  - name: many",
    `    url: ${url}`,
    "    authSecret: DOCS_MCP_TOKEN",
    "---",
    "You operate the back office.",
  ].join("\n");
  expect((await putIdentity(name, identity, admin.token)).status).toBe(200);
  return {
    name,
    remove: async () => {
      await deleteIdentity(name, admin.token);
    },
  };
}

type RequestTools = Array<{ name: string }>;

describe("tool search", () => {
  it("defers an MCP server's 200 tools past 10 % of the window; a found tool is called", async () => {
    const agent = await manyToolsAgent();
    try {
      const s = await scenario([
        tool(TOOL_SEARCH, { query: "weather forecast" }),
        tool("many__weather_forecast", { city: "Lisbon" }),
        { text: "done" },
      ]);
      const task = await sendTask(
        { message: userMessage(`What is the weather in Lisbon? ${s.marker}`) },
        { path: `/agents/${agent.name}/` },
      );
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      const requests = await modelRequests(s.id);
      expect(requests).toHaveLength(3);
      const limit = contextWindowOf(MODEL) * TOOL_SHARE;
      for (const request of requests) {
        const tools = (request.body as unknown as { tools: RequestTools }).tools;
        expect(estimateTokens(tools)).toBeLessThan(limit);
      }
      // The first request: the harness's tools, part of the server's, and tool_search.
      const first = await offeredTools(s.id, 0);
      expect(first).toEqual(expect.arrayContaining([TOOL_SEARCH, "read_file", "write_file"]));
      const many = first.filter((name) => name.startsWith("many__"));
      expect(many.length).toBeGreaterThan(0);
      expect(many.length).toBeLessThan(200);
      expect(first).not.toContain("many__weather_forecast");
      // Found by the search, offered from the next turn, then called on the server.
      const [found, called] = await toolResults(s.id);
      expect(found).toMatch(/^Loaded 1 tool; call it from your next turn:/);
      expect(found).toContain("- many__weather_forecast: [MCP many] Forecast the weather");
      expect(found).toContain("Input: { city: string }");
      expect(await offeredTools(s.id, 1)).toContain("many__weather_forecast");
      expect(await offeredTools(s.id, 2)).toContain("many__weather_forecast");
      expect(called).toBe("Forecast for Lisbon: sunny, 24 °C.");
    } finally {
      await agent.remove();
    }
  });

  it("says what is not loaded when a search finds nothing", async () => {
    const agent = await manyToolsAgent();
    try {
      const s = await scenario([tool(TOOL_SEARCH, { query: "spaceship" }), { text: "done" }]);
      await sendTask(
        { message: userMessage(`fly ${s.marker}`) },
        { path: `/agents/${agent.name}/` },
      );
      const [result] = await toolResults(s.id);
      expect(result).toMatch(
        /^No tool that is not loaded yet matches "spaceship"\. Not loaded: \d+ of the 200 tools of the MCP server many\./,
      );
    } finally {
      await agent.remove();
    }
  });

  it("offers every tool, and no tool search, while the definitions fit", async () => {
    const s = await scenario([{ text: "few tools" }]);
    await sendTask({ message: userMessage(`hi ${s.marker}`) }, { path: "/agents/researcher/" });
    const offered = await offeredTools(s.id);
    expect(offered).toEqual(expect.arrayContaining(["docs__lookup", "docs__fail", "docs__long"]));
    expect(offered).not.toContain(TOOL_SEARCH);
  });
});
