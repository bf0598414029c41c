/**
 * A remote MCP server's tools under `npm run dev` (workerd as deployed: no code generation from
 * strings): an agent uploaded for the test lists a `docs` server (DOCS_MCP_URL), the fake MCP
 * server on 127.0.0.1, whose `stats` tool declares an `outputSchema`. The MCP client validates that tool's structured
 * content with a validator that interprets schemas (ajv compiles them with `new Function`, which
 * a Worker refuses: listing the server's tools failed and the agent got none of them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeMcpServer, startFakeMcp } from "../fake-mcp/server.ts";
import { messageCallBody, scenario } from "./client.ts";
import { type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";

let mcp: FakeMcpServer;
let harness: ScriptedHarness;
const ADMIN = "remote-mcp-admin";
const IDENTITY = [
  "---",
  "name: mcpuser",
  "description: An agent with a remote MCP server.",
  "version: 1.0.0",
  "maxTurns: 3",
  "maxTokens: 1024",
  "mcp:",
  "  - { name: docs, urlVar: DOCS_MCP_URL }",
  "---",
  "You are an agent for the remote MCP test.",
].join("\n");

beforeAll(async () => {
  mcp = await startFakeMcp({ port: 0 });
  harness = await startScriptedHarness({ DOCS_MCP_URL: mcp.url, ADMIN_API_KEY: ADMIN });
  const put = await fetch(`${harness.server.url}/api/admin/agents/mcpuser/identity`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${ADMIN}`, "content-type": "text/markdown" },
    body: IDENTITY,
  });
  if (put.status !== 200) throw new Error(`upload refused: ${await put.text()}`);
});

afterAll(async () => {
  await harness?.stop();
  await mcp?.close();
});

const tool = (name: string, input: Record<string, unknown>) => ({ toolUses: [{ name, input }] });

describe("a remote MCP server's tools", () => {
  it("offers a tool with an outputSchema and returns its validated result", async () => {
    const id = `remote-mcp-${crypto.randomUUID()}`;
    const marker = await scenario(harness.fake.url, id, [
      tool("docs__stats", { term: "edge" }),
      { text: "counted" },
    ]);
    const response = await fetch(`${harness.server.url}/agents/mcpuser/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: messageCallBody("SendMessage", `count pages ${marker}`),
    });
    const body = (await response.json()) as { result?: { task?: { status?: { state?: string } } } };
    expect(body.result?.task?.status?.state).toBe("TASK_STATE_COMPLETED");
    expect(mcp.calls).toContainEqual({ tool: "stats", args: { term: "edge" } });
    const requests = harness.fake.store.requests(id);
    const offered = JSON.stringify(requests[0]?.body ?? requests[0]);
    expect(offered).toContain("docs__stats");
    expect(JSON.stringify(requests.at(-1))).toContain('{\\"term\\":\\"edge\\",\\"pages\\":4}');
  });
});
