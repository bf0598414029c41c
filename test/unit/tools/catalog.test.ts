import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bundledAgents } from "../../../src/agents/registry.ts";
import { TOOL_DOMAINS, TOOL_NAMES } from "../../../src/agents/tool-names.ts";
import { loadConfig } from "../../../src/config/config.ts";
import type { HarnessEvent, ToolContext } from "../../../src/loop/contracts.ts";
import { writeSharedMemory } from "../../../src/store/shared-memory.ts";
import {
  allTools,
  reachesWorkspace,
  SUBAGENT_DENIED,
  toolsFor,
} from "../../../src/tools/catalog.ts";
import { memoryReadTool, memoryWriteTool } from "../../../src/tools/state/memory.ts";
import { progressUpdateTool } from "../../../src/tools/state/progress.ts";
import { writeTodosTool } from "../../../src/tools/state/todos.ts";
import type { WorkspaceApi } from "../../../src/workspace/types.ts";
import { toolContext } from "../../helpers/tool-context.ts";

const agent = (name: string) => {
  const a = bundledAgents().get(name);
  if (!a) throw new Error(name);
  return a;
};

describe("tool catalog", () => {
  it("has every pinned tool name, each in one of the documented domains", () => {
    expect(allTools().names()).toEqual([
      "a2a_call",
      "a2a_call_streaming",
      "a2a_cancel",
      "a2a_discover",
      "a2a_get_task",
      "a2a_list",
      "ask_user",
      "attach_file",
      "checkpoint_create",
      "checkpoint_list",
      "checkpoint_restore",
      "edit_file",
      "feature_update",
      "fetch_document",
      "grep_files",
      "list_files",
      "memory_read",
      "memory_write",
      "progress_read",
      "progress_update",
      "read_file",
      "run_code",
      "scratch_list",
      "scratch_read",
      "scratch_write",
      "search",
      "skill_load",
      "skill_read",
      "state_restore",
      "task",
      "web_fetch",
      "write_file",
      "write_todos",
    ]);
  });

  it("matches the names the IDENTITY.md parser accepts (agents/tool-names.ts)", () => {
    expect([...TOOL_NAMES].sort()).toEqual(allTools().names());
    // Every tool is in one of the listed domains.
    expect(allTools().filter({ allow: TOOL_DOMAINS, deny: [] }).names()).toEqual(
      allTools().names(),
    );
  });

  it("says whether a set of tools reaches the workspace (files, state, memory, sandbox, sub-agents)", () => {
    const only = (names: string[]) => allTools().filter({ allow: names, deny: [] });
    expect(reachesWorkspace(toolsFor(agent("assistant"), loadConfig({})))).toBe(true);
    expect(reachesWorkspace(toolsFor(agent("researcher"), loadConfig({})))).toBe(true);
    expect(reachesWorkspace(only(["web", "plan", "scratchpad", "knowledge", "a2a", "human"]))).toBe(
      false,
    );
    for (const name of ["read_file", "checkpoint_list", "memory_read", "progress_read", "task"])
      expect(reachesWorkspace(only([name]))).toBe(true);
    expect(reachesWorkspace(only(["run_code"]))).toBe(true);
  });

  it("applies TOOLS_ENABLED (domains or names), then the agent's allow and deny", () => {
    const all = loadConfig({});
    expect(toolsFor(agent("researcher"), all).names()).not.toContain("write_file");
    expect(toolsFor(agent("researcher"), all).names()).toContain("read_file");
    expect(toolsFor(agent("writer"), all).names()).toContain("write_file");
    const some = loadConfig({ TOOLS_ENABLED: "workspace,write_todos" });
    expect(toolsFor(agent("writer"), some).names()).toEqual([
      "attach_file",
      "edit_file",
      "grep_files",
      "list_files",
      "read_file",
      "write_file",
      "write_todos",
    ]);
    expect(toolsFor(agent("researcher"), some).names()).toEqual([
      "attach_file",
      "grep_files",
      "list_files",
      "read_file",
      "write_todos",
    ]);
  });

  it("offers run_code as the code domain: off with TOOLS_ENABLED, off for an agent that denies it", () => {
    expect(toolsFor(agent("writer"), loadConfig({})).names()).toContain("run_code");
    expect(toolsFor(agent("writer"), loadConfig({ TOOLS_ENABLED: "code" })).names()).toEqual([
      "run_code",
    ]);
    expect(
      toolsFor(agent("writer"), loadConfig({ TOOLS_ENABLED: "workspace,plan" })).names(),
    ).not.toContain("run_code");
    const denying = { ...agent("writer"), tools: { ...agent("writer").tools, deny: ["run_code"] } };
    expect(toolsFor(denying, loadConfig({})).names()).not.toContain("run_code");
  });

  it("keeps run_code for a sub-agent (a sandbox, not a shell), never ask_user or task", () => {
    // The decision on the reference design's "no shell for sub-agents": run_code is a fresh
    // isolate with no network and the deployment's CPU and time bounds, so a sub-agent that
    // writes code (the writer's guides and READMEs among them) keeps it to verify that code.
    for (const each of bundledAgents().list()) {
      const top = toolsFor(each, loadConfig({}), { codeSandbox: true }).names();
      const sub = toolsFor(each, loadConfig({}), { subagent: true, codeSandbox: true }).names();
      expect(sub).toEqual(top.filter((name) => !SUBAGENT_DENIED.includes(name)));
      expect(sub.includes("run_code")).toBe(top.includes("run_code"));
    }
    expect(SUBAGENT_DENIED).toEqual(["ask_user", "task"]);
  });

  it("offers no run_code where the deployment has no Worker Loader (the Workers Free plan)", () => {
    const withLoader = toolsFor(agent("writer"), loadConfig({}), { codeSandbox: true }).names();
    const without = toolsFor(agent("writer"), loadConfig({}), { codeSandbox: false }).names();
    expect(withLoader).toContain("run_code");
    expect(without).not.toContain("run_code");
    expect(withLoader.filter((name) => name !== "run_code")).toEqual(without);
  });
});

function context(workspace: Partial<WorkspaceApi> = {}): {
  ctx: ToolContext;
  events: HarnessEvent[];
} {
  const events: HarnessEvent[] = [];
  const owner = `u-${crypto.randomUUID().slice(0, 8)}`;
  return {
    events,
    ctx: toolContext({
      taskId: "t",
      contextId: "c",
      agent: "writer",
      owner,
      config: loadConfig({}),
      workspace: workspace as WorkspaceApi,
      emit: (e) => void events.push(e),
    }),
  };
}

describe("memory, plan and progress tools", () => {
  it("memory_write appends to the user's CONTEXT.md and memory_read shows it beside the shared one", async () => {
    const { ctx } = context();
    await writeSharedMemory(env.FILES, "writer", "Team glossary.");
    expect((await memoryWriteTool.run({ content: "Likes tables." }, ctx)).content).toContain(
      "updated",
    );
    await memoryWriteTool.run({ content: "Works in Berlin." }, ctx);
    const read = await memoryReadTool.run({}, ctx);
    expect(read.content).toContain("Team glossary.");
    expect(read.content).toContain("Likes tables.\n\nWorks in Berlin.");
    await memoryWriteTool.run({ content: "Only this.", mode: "replace" }, ctx);
    expect((await memoryReadTool.run({}, ctx)).content).not.toContain("Likes tables");
    expect((await memoryWriteTool.run({ content: "" }, ctx)).isError).toBe(true);
  });

  it("write_todos publishes the plan", async () => {
    const { ctx, events } = context();
    const result = await writeTodosTool.run(
      {
        todos: [
          { content: "A", status: "completed" },
          { content: "B", status: "in_progress" },
        ],
      },
      ctx,
    );
    expect(result.content).toBe("Plan saved (1/2 done):\n[x] A\n[~] B");
    expect(events[0]).toMatchObject({
      kind: "plan",
      detail: { todos: [{ content: "A" }, { content: "B" }] },
    });
    expect(
      (await writeTodosTool.run({ todos: [{ content: "A", status: "maybe" }] }, ctx)).isError,
    ).toBe(true);
  });

  it("progress_update refuses an invalid update with the reason and merges a valid one", async () => {
    let stored: string | null = JSON.stringify({
      accomplished: ["a"],
      remaining: ["b"],
      decisions: [],
      blockers: [],
    });
    const workspace: Partial<WorkspaceApi> = {
      read: async () =>
        stored === null
          ? { ok: false, error: "missing" }
          : {
              ok: true,
              value: {
                path: "PROGRESS.json",
                content: stored,
                totalLines: 1,
                fromLine: 1,
                toLine: 1,
              },
            },
      write: async (_p, content, meta) => {
        expect(meta.harness).toBe(true);
        if (typeof content !== "string") throw new Error("the harness writes text");
        stored = content;
        return {
          ok: true,
          value: {
            path: "PROGRESS.json",
            bytes: content.length,
            created: false,
            checkpoint: null,
            updatedAt: new Date().toISOString(),
          },
        };
      },
    };
    const { ctx, events } = context(workspace);
    const bad = await progressUpdateTool.run({ remaining: "not a list" }, ctx);
    expect(bad).toMatchObject({
      isError: true,
      content: expect.stringContaining("Refused: remaining"),
    });
    expect((await progressUpdateTool.run({ extra: ["x"] }, ctx)).isError).toBe(true);
    const ok = await progressUpdateTool.run({ remaining: [], accomplished: ["a", "b"] }, ctx);
    expect(ok.content).toContain("2 accomplished, 0 remaining");
    expect(JSON.parse(stored ?? "{}")).toEqual({
      accomplished: ["a", "b"],
      remaining: [],
      decisions: [],
      blockers: [],
    });
    expect(events.map((e) => e.kind)).toEqual(["progress"]);
  });
});
