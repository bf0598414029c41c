/**
 * Remote MCP tools through the A2A endpoint: the researcher's frontmatter names an MCP server
 * (`docs`, URL from DOCS_MCP_URL, bearer token from DOCS_MCP_TOKEN); its tools join as
 * `docs__<tool>` and pass through the same hooks (events, output compaction) as the harness's own.
 * The server is a small MCP server on 127.0.0.1 built with the official MCP SDK (test/fake-mcp).
 * A server that cannot list its tools is named, with the reason, at the end of the system prompt.
 */

import { describe, expect, it } from "vitest";
import { mcpToolName } from "../../src/mcp/tools.ts";
import { HARNESS_EVENTS_EXTENSION } from "../../src/protocol/extensions.ts";
import { sendTask, userMessage } from "../helpers/a2a.ts";
import { modelRequests, offeredTools, scenario, toolResults } from "../helpers/fake-model.ts";
import { toolTurn as tool } from "../helpers/turns.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

type Part = { text?: string };

describe("MCP tools", () => {
  it("joins the server's tools under a prefix and runs them through the hooks", async () => {
    const s = await scenario([
      tool("docs__lookup", { term: "edge" }),
      tool("docs__fail", {}),
      tool("docs__long", {}),
      tool("docs__stats", { term: "edge" }),
      { text: "done" },
    ]);
    const task = await sendTask(
      { message: userMessage(`look it up ${s.marker}`) },
      { path: "/agents/researcher/" },
    );
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const offered = await offeredTools(s.id);
    expect(offered).toEqual(expect.arrayContaining(["docs__lookup", "docs__fail", "docs__long"]));
    // A tool with an outputSchema: its structured content is validated without code generation
    // (ajv's compiled validators cannot run in a Worker: listing such a server's tools failed).
    expect(offered).toContain("docs__stats");
    const [lookup, fail, long, stats] = await toolResults(s.id);
    expect(stats).toBe('{"term":"edge","pages":4}');
    expect(lookup).toBe("Definition of edge: a thing at the edge.");
    expect(fail).toBe("ERROR the docs backend is down");
    // Output compaction (COMPACT_OUTPUT_LINES, 50) applies to MCP results too.
    expect(long?.split("\n").length).toBeLessThan(60);
    expect(long).toContain("200 lines");
    const events = ((task.history ?? []) as Array<{ parts: Part[]; extensions?: string[] }>)
      .filter((m) => m.extensions?.includes(HARNESS_EVENTS_EXTENSION))
      .map((m) => m.parts[0]?.text);
    expect(events).toContain("Calling docs__lookup");
  });

  it("offers MCP tools only to the agent that lists the server", async () => {
    const s = await scenario([{ text: "no tools from docs here" }]);
    await sendTask({ message: userMessage(`hi ${s.marker}`) }, { path: "/agents/writer/" });
    expect((await offeredTools(s.id)).some((t) => t.startsWith("docs__"))).toBe(false);
  });

  it("tells the model in one line which MCP server is unavailable and why; others still join", async () => {
    // An uploaded agent with three servers: the fake one without its token (401), one where
    // nothing listens, and the fake one with its token.
    const identity = [
      "---",
      "name: mcpdown",
      "description: An agent whose MCP servers fail.",
      "version: 1.0.0",
      "model: claude-sonnet-4-6",
      "maxTurns: 3",
      "maxTokens: 1024",
      "mcp:",
      "  - { name: docs, urlVar: DOCS_MCP_URL }",
      '  - { name: gone, url: "http://127.0.0.1:9/mcp" }',
      "  - { name: good, urlVar: DOCS_MCP_URL, authSecret: DOCS_MCP_TOKEN }",
      "---",
      "You are an agent for the MCP failure test.",
    ].join("\n");
    const put = await putIdentity("mcpdown", identity);
    expect(put.status, await put.clone().text()).toBe(200);
    try {
      const s = await scenario([{ text: "worked without them" }]);
      const task = await sendTask(
        { message: userMessage(`hi ${s.marker}`) },
        { path: "/agents/mcpdown/" },
      );
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      const offered = await offeredTools(s.id);
      expect(offered).toContain("good__lookup");
      expect(offered.some((t) => t.startsWith("docs__") || t.startsWith("gone__"))).toBe(false);
      const system = (await modelRequests(s.id))[0]?.body.system as Array<{
        text: string;
        cache_control?: unknown;
      }>;
      const note = system.at(-1);
      expect(note?.cache_control).toBeUndefined();
      const lines = note?.text.split("\n") ?? [];
      expect(lines[0]).toBe("## Unavailable tool servers");
      expect(lines[1]).toBe(
        "- MCP server docs is unavailable (it answered HTTP 401: its credentials were refused): its tools (docs__*) are missing this turn.",
      );
      expect(lines[2]).toMatch(
        /^- MCP server gone is unavailable \(.{1,160}\): its tools \(gone__\*\) are missing this turn\.$/,
      );
      expect(lines).toHaveLength(4);
    } finally {
      await deleteIdentity("mcpdown");
    }
  });

  it("says nothing of MCP servers when every one lists its tools", async () => {
    const s = await scenario([{ text: "fine" }]);
    await sendTask({ message: userMessage(`fine ${s.marker}`) }, { path: "/agents/researcher/" });
    expect(JSON.stringify((await modelRequests(s.id))[0]?.body.system)).not.toContain(
      "Unavailable tool servers",
    );
  });

  it("names tools within the Messages API's limits", () => {
    expect(mcpToolName("docs", "search.v2/all")).toBe("docs__search_v2_all");
    expect(mcpToolName("docs", "x".repeat(100))).toHaveLength(64);
  });
});
