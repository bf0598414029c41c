/**
 * Remote MCP tools through the A2A endpoint: the researcher's frontmatter names an MCP server
 * (`docs`, URL from DOCS_MCP_URL, bearer token from DOCS_MCP_TOKEN); its tools join as
 * `docs__<tool>` and pass through the same hooks (events, output compaction) as the harness's own.
 * The server is a small MCP server on 127.0.0.1 built with the official MCP SDK (test/fake-mcp).
 */

import { describe, expect, it } from "vitest";
import { mcpToolName } from "../../src/mcp/tools.ts";
import { HARNESS_EVENTS_EXTENSION } from "../../src/protocol/extensions.ts";
import { rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { offeredTools, scenario, toolResults } from "../helpers/fake-model.ts";
import { toolTurn as tool } from "../helpers/turns.ts";

type Part = { text?: string };

describe("MCP tools", () => {
  it("joins the server's tools under a prefix and runs them through the hooks", async () => {
    const s = await scenario([
      tool("docs__lookup", { term: "edge" }),
      tool("docs__fail", {}),
      tool("docs__long", {}),
      { text: "done" },
    ]);
    const task = (
      await rpc<{ task: WireTask }>(
        "SendMessage",
        { message: userMessage(`look it up ${s.marker}`) },
        { path: "/agents/researcher/" },
      )
    ).result?.task as WireTask;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const offered = await offeredTools(s.id);
    expect(offered).toEqual(expect.arrayContaining(["docs__lookup", "docs__fail", "docs__long"]));
    const [lookup, fail, long] = await toolResults(s.id);
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
    await rpc(
      "SendMessage",
      { message: userMessage(`hi ${s.marker}`) },
      { path: "/agents/writer/" },
    );
    expect((await offeredTools(s.id)).some((t) => t.startsWith("docs__"))).toBe(false);
  });

  it("names tools within the Messages API's limits", () => {
    expect(mcpToolName("docs", "search.v2/all")).toBe("docs__search_v2_all");
    expect(mcpToolName("docs", "x".repeat(100))).toHaveLength(64);
  });
});
