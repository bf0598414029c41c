/**
 * A tool in code (src/tools/custom/agent-tool.ts) run as the loop runs it, in workerd: its input
 * validated first; its context's workspace (the caller's, a real workspace object), the task's
 * abort signal, a fetch through the SSRF guard (nothing sent to a private address, every redirect
 * hop checked, credentials dropped across origins), and the granted secrets and bindings only;
 * a tool like any other to the filters, approvals and caps; a module that exports no tool.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolExportProblem } from "../../../../src/agents/bundle.ts";
import { parseIdentity } from "../../../../src/agents/identity.ts";
import { loadConfig } from "../../../../src/config/config.ts";
import { approvalsHook } from "../../../../src/hooks/approvals.ts";
import { capsHook } from "../../../../src/hooks/caps.ts";
import { ToolRegistry } from "../../../../src/loop/calls/tool-registry.ts";
import type { Tool, ToolContext } from "../../../../src/loop/contracts.ts";
import { toolGrants } from "../../../../src/task/turn/turn-resources.ts";
import { toolsFor } from "../../../../src/tools/catalog.ts";
import {
  type AgentToolContext,
  defineAgentTool,
  isAgentTool,
} from "../../../../src/tools/custom/agent-tool.ts";
import { workspaceFor } from "../../../../src/workspace/client.ts";
import { hookContext } from "../../../helpers/hook-context.ts";
import { toolContext } from "../../../helpers/tool-context.ts";

/** A tool whose work is `work`, given the context. */
const probe = (work: (context: AgentToolContext, input: { say: string }) => Promise<string>) =>
  defineAgentTool({
    name: "probe",
    description: "Probes its context.",
    input: z.strictObject({ say: z.string().min(1).describe("Anything.") }),
    run: (input, context) => work(context, input),
  });

/** Runs `tool` as the loop does: through a registry, which makes a thrown error a tool error. */
const run = (tool: Tool, input: Record<string, unknown>, ctx: ToolContext) =>
  new ToolRegistry([tool]).run(tool.name, input, ctx);

/** A fetch that answers from `routes` (404 otherwise) and records what was sent. */
function fakeSend(routes: Record<string, (init: RequestInit) => Response | Promise<Response>>) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const send = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    calls.push({ url, init: init ?? {} });
    const route = routes[url];
    return route ? route(init ?? {}) : new Response("nope", { status: 404 });
  };
  return { send: send as typeof fetch, calls };
}

/** A context for the tool: a fresh owner's real workspace, private hosts refused. */
function context(overrides: Partial<ToolContext> = {}): ToolContext {
  const owner = `u-${crypto.randomUUID().slice(0, 8)}`;
  return toolContext({
    taskId: `t-${owner}`,
    agent: "orders",
    owner,
    config: { ...loadConfig(env), webFetchAllowPrivate: false },
    workspace: workspaceFor(env.WORKSPACES, "orders", owner),
    ...overrides,
  });
}

describe("a tool in code", () => {
  it("is refused an invalid input with the fields at fault, before its work", async () => {
    let ran = false;
    const tool = probe(async () => {
      ran = true;
      return "ran";
    }).tool;
    const result = await run(tool, { say: "", extra: 1 }, context());
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toMatch(/^Invalid input for probe: /);
    expect(result.content).toContain("Expected { say: string }");
    expect(ran).toBe(false);
    expect(tool).toMatchObject({ name: "probe", domain: "custom" });
    expect(tool.inputSchema).toMatchObject({ required: ["say"], additionalProperties: false });
  });

  it("reads and writes the caller's workspace; its writes are the task's changes", async () => {
    const ctx = context();
    const tool = probe(async (c, { say }) => {
      await c.workspace.write("notes/order.md", say);
      const listed = await c.workspace.list("notes/");
      return `${await c.workspace.read("notes/order.md")} | ${listed.map((e) => e.path).join(",")}`;
    }).tool;
    const result = await run(tool, { say: "shipped" }, ctx);
    expect(result).toEqual({
      content: "shipped | notes/order.md",
      effects: { wrote: ["notes/order.md"] },
    });
    const stored = await ctx.workspace.read("notes/order.md");
    expect(stored.ok && stored.value.content).toBe("shipped");
    // A state file is the harness's: the workspace's refusal is the tool's error.
    const state = probe(async (c) => {
      await c.workspace.write("PROGRESS.json", "{}");
      return "written";
    }).tool;
    const refused = await run(state, { say: "x" }, ctx);
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(
      /^Tool "probe" failed: PROGRESS\.json is kept by progress_update/,
    );
  });

  it("is given the task's abort signal, which stops its fetch in flight", async () => {
    const task = new AbortController();
    let started!: () => void;
    const sent = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { send } = fakeSend({
      "https://api.example.com/slow": (init) =>
        new Promise((_, reject) => {
          started();
          init.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        }),
    });
    const tool = probe(async (c) => {
      expect(c.signal).toBe(task.signal);
      await c.fetch("https://api.example.com/slow");
      return "answered";
    }).tool;
    const running = run(tool, { say: "x" }, context({ signal: task.signal, fetch: send }));
    await sent;
    task.abort(new Error("task canceled"));
    expect(await running).toEqual({ content: 'Tool "probe" failed: task canceled', isError: true });
  });

  it("fetches through the SSRF guard: nothing is sent to a private address or a redirect to one", async () => {
    const { send, calls } = fakeSend({
      "https://api.example.com/orders?id=7": () => Response.json({ status: "shipped" }),
      "https://api.example.com/moved": () =>
        new Response(null, { status: 302, headers: { location: "http://10.0.0.8/admin" } }),
    });
    const fetched = (url: string) =>
      run(
        probe(async (c) => (await c.fetch(url)).text()).tool,
        { say: "x" },
        context({ fetch: send }),
      );
    expect(await fetched("https://api.example.com/orders?id=7")).toEqual({
      content: '{"status":"shipped"}',
    });
    for (const url of [
      "http://127.0.0.1:8787/api/admin/users",
      "http://10.0.0.8/",
      "http://169.254.169.254/latest/meta-data/",
      "http://localhost/",
      "http://intranet/",
      "http://[::1]/",
    ]) {
      const refused = await fetched(url);
      expect(refused.isError, url).toBe(true);
      expect(refused.content, url).toMatch(/^Tool "probe" failed: fetch refused http/);
    }
    const redirected = await fetched("https://api.example.com/moved");
    expect(redirected.content).toMatch(
      /^Tool "probe" failed: fetch refused a redirect from https:\/\/api\.example\.com\/moved: /,
    );
    expect(calls.map((c) => c.url)).toEqual([
      "https://api.example.com/orders?id=7",
      "https://api.example.com/moved",
    ]);
  });

  it("drops its credentials on a redirect to another origin, and keeps them on its own", async () => {
    const { send, calls } = fakeSend({
      "https://api.example.com/a": () =>
        new Response(null, { status: 307, headers: { location: "/b" } }),
      "https://api.example.com/b": () =>
        new Response(null, { status: 302, headers: { location: "https://cdn.example.net/c" } }),
      "https://cdn.example.net/c": () => new Response("done"),
    });
    const tool = probe(async (c) =>
      (
        await c.fetch("https://api.example.com/a", {
          headers: { Authorization: "Bearer secret-1", "X-Trace": "kept" },
        })
      ).text(),
    ).tool;
    expect(await run(tool, { say: "x" }, context({ fetch: send }))).toEqual({ content: "done" });
    const auth = calls.map((c) => new Headers(c.init.headers).get("authorization"));
    expect(auth).toEqual(["Bearer secret-1", "Bearer secret-1", null]);
    expect(new Headers(calls[2]?.init.headers).get("x-trace")).toBe("kept");
  });

  it("is given only the secrets and bindings its agent's frontmatter grants, and only those set", async () => {
    const agent = parseIdentity(
      "agents/orders/IDENTITY.md",
      "---\nname: orders\ntools:\n  secrets: [DOCS_MCP_TOKEN, ORDERS_API_KEY, FILES]\n  bindings: [FILES]\n---\nYou help.\n",
      { tools: ["probe"] },
    );
    const grants = toolGrants(env, agent);
    // ADMIN_API_KEY, ANTHROPIC_API_KEY and every other binding stay out; an unset name is absent,
    // and a binding named as a secret is no string.
    expect(grants.secrets).toEqual({ DOCS_MCP_TOKEN: "mcp-test-token" });
    expect(Object.keys(grants.bindings)).toEqual(["FILES"]);
    const seen = await probe(async (c) =>
      JSON.stringify([Object.keys(c.secrets), Object.keys(c.bindings)]),
    ).tool.run({ say: "x" }, context({ grants }));
    expect(seen.content).toBe('[["DOCS_MCP_TOKEN"],["FILES"]]');
    const none = await probe(async (c) => JSON.stringify([c.secrets, c.bindings])).tool.run(
      { say: "x" },
      context(),
    );
    expect(none.content).toBe("[{},{}]");
  });

  it("answers text, or text flagged as an error", async () => {
    const flagged = defineAgentTool({
      name: "flagged",
      description: "d",
      input: z.strictObject({}),
      run: () => ({ content: "the API is down", isError: true }),
    });
    expect(await flagged.tool.run({}, context())).toEqual({
      content: "the API is down",
      isError: true,
    });
  });

  it("is a tool like any other: filtered by allow and deny, waits for approval, counts against its cap", async () => {
    const tool = probe(async () => "ok").tool;
    const parse = (tools: string) =>
      parseIdentity(
        "agents/orders/IDENTITY.md",
        `---\nname: orders\ntools:\n${tools}\n---\nHi.\n`,
        {
          tools: ["probe"],
        },
      );
    const names = (tools: string) =>
      toolsFor(parse(tools), loadConfig({}), { extra: [tool] }).names();
    expect(names("  allow: [probe, read_file]")).toEqual(["probe", "read_file"]);
    expect(names("  allow: [custom]")).toEqual(["probe"]);
    expect(names("  deny: [probe]")).not.toContain("probe");
    expect(names("  deny: [custom]")).not.toContain("probe");
    const agent = parse("  requireApproval: [probe]");
    const call = { id: "c1", name: "probe", input: { say: "x" } };
    const approvals = hookContext({}, agent.tools.requireApproval);
    expect(await approvalsHook.beforeTool?.(approvals.ctx, call)).toEqual({
      suspend: { kind: "approval", tool: "probe", input: { say: "x" } },
    });
    const caps = hookContext({ TOOL_CALL_CAPS: "probe:1" });
    expect(await capsHook.beforeTool?.(caps.ctx, call)).toBeUndefined();
    expect(await capsHook.beforeTool?.(caps.ctx, call)).toMatchObject({
      result: { content: expect.stringContaining("probe has been used 1 times") },
    });
  });
});

describe("a tool module", () => {
  it("serves when its default export is a tool of its file's name", () => {
    const made = probe(async () => "ok");
    expect(isAgentTool(made)).toBe(true);
    expect(toolExportProblem(made, "probe")).toBeNull();
    expect(toolExportProblem(made, "lookup")).toBe(
      'the tool is named "probe"; a tool is named as its file: "lookup"',
    );
    for (const exported of [undefined, {}, { kind: "agent-tool" }, () => "tool"])
      expect(toolExportProblem(exported, "probe")).toMatch(/^its default export is not a tool/);
  });
});
