import { describe, expect, it } from "vitest";
import { capsHook } from "../../../src/hooks/caps.ts";
import { loopDetectionHook } from "../../../src/hooks/loop-detection.ts";
import { outputCompactionHook, outputTruncationHook } from "../../../src/hooks/output-limits.ts";
import { toolEventsHook } from "../../../src/hooks/tool-events.ts";
import { verificationHook } from "../../../src/hooks/verification.ts";
import { HookRunner } from "../../../src/loop/calls/hook-runner.ts";
import type { HookContext, ToolResult } from "../../../src/loop/contracts.ts";
import { hookContext, TEST_TOOLS } from "../../helpers/hook-context.ts";

const call = (name: string, input: unknown = {}) => ({ id: "c", name, input });
const wrote = (path: string): ToolResult => ({ content: "ok", effects: { wrote: [path] } });
const read = (path: string): ToolResult => ({ content: "ok", effects: { read: [path] } });
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("caps", () => {
  it("lets a tool run up to its cap, then answers without running (not an error)", async () => {
    const { ctx, events } = hookContext({ TOOL_CALL_CAPS: "web_fetch:2" });
    expect(await capsHook.beforeTool?.(ctx, call("web_fetch"))).toBeUndefined();
    expect(await capsHook.beforeTool?.(ctx, call("web_fetch"))).toBeUndefined();
    const third = await capsHook.beforeTool?.(ctx, call("web_fetch"));
    if (!third || !("result" in third)) throw new Error("expected a result");
    expect(third.result.isError).toBeUndefined();
    expect(third.result.content).toContain("used 2 times in this task");
    expect(events.map((e) => e.kind)).toEqual(["cap_reached"]);
    expect(await capsHook.beforeTool?.(ctx, call("read_file"))).toBeUndefined();
  });

  it("caps only the table's own entries: inherited names such as constructor find no cap", async () => {
    const { ctx, events } = hookContext({ TOOL_CALL_CAPS: "web_fetch:2" });
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      for (let i = 0; i < 3; i++)
        expect(await capsHook.beforeTool?.(ctx, call(name)), name).toBeUndefined();
    }
    expect(events).toEqual([]);
    // A tool really named constructor (an MCP server's, say) is capped by its own entry.
    const named = hookContext({ TOOL_CALL_CAPS: "constructor:1" });
    expect(await capsHook.beforeTool?.(named.ctx, call("constructor"))).toBeUndefined();
    const second = await capsHook.beforeTool?.(named.ctx, call("constructor"));
    if (!second || !("result" in second)) throw new Error("expected a result");
    expect(second.result.content).toContain("used 1 times in this task");
  });

  it("caps search and fetch_document at SEARCH_MAX_CALLS and FETCH_DOCUMENT_MAX_CALLS", async () => {
    const { ctx, events } = hookContext({
      TOOL_CALL_CAPS: "search:9,fetch_document:9,web_fetch:4",
      SEARCH_MAX_CALLS: "1",
      FETCH_DOCUMENT_MAX_CALLS: "2",
    });
    expect(ctx.config.toolCallCaps).toEqual({ search: 1, fetch_document: 2, web_fetch: 4 });
    expect(await capsHook.beforeTool?.(ctx, call("search"))).toBeUndefined();
    const search = await capsHook.beforeTool?.(ctx, call("search"));
    if (!search || !("result" in search)) throw new Error("expected a result");
    expect(search.result.isError).toBeUndefined();
    expect(search.result.content).toMatch(/^search has been used 1 times in this task/);
    for (let i = 0; i < 2; i++)
      expect(await capsHook.beforeTool?.(ctx, call("fetch_document"))).toBeUndefined();
    expect(await capsHook.beforeTool?.(ctx, call("fetch_document"))).toMatchObject({
      result: { content: expect.stringMatching(/^fetch_document has been used 2 times/) },
    });
    expect(events.map((e) => e.tool)).toEqual(["search", "fetch_document"]);
    // Unset (or empty), the TOOL_CALL_CAPS entries stand.
    expect(hookContext({ SEARCH_MAX_CALLS: "" }).ctx.config.toolCallCaps.search).toBe(5);
  });

  it("uses the documented default caps", () => {
    expect(hookContext().ctx.config.toolCallCaps).toEqual({
      web_fetch: 10,
      fetch_document: 10,
      search: 5,
      grep_files: 10,
      a2a_call: 10,
      a2a_call_streaming: 10,
      a2a_discover: 10,
      run_code: 20,
    });
  });
});

describe("output compaction and truncation", () => {
  it("keeps a successful output of exactly N lines, compacts N+1, passes failures whole", async () => {
    const { ctx, events } = hookContext({ COMPACT_OUTPUT_LINES: "50" });
    const exact = { content: lines(50) };
    expect(await outputCompactionHook.afterTool?.(ctx, call("read_file"), exact)).toBe(exact);
    const long = await outputCompactionHook.afterTool?.(ctx, call("read_file"), {
      content: lines(51),
      effects: { read: ["a"] },
    });
    expect(long?.content.split("\n")).toHaveLength(22);
    expect(long?.content).toContain("51 lines");
    expect(long?.content).toContain("read_file again with offset and limit");
    expect(long?.effects).toEqual({ read: ["a"] });
    const failure = { content: lines(500), isError: true };
    expect(await outputCompactionHook.afterTool?.(ctx, call("read_file"), failure)).toBe(failure);
    expect(events.map((e) => e.kind)).toEqual(["output_compacted"]);
    const off = hookContext({ COMPACT_OUTPUT_LINES: "0" });
    expect(
      (await outputCompactionHook.afterTool?.(off.ctx, call("x"), { content: lines(500) }))
        ?.content,
    ).toBe(lines(500));
  });

  it("truncates over MAX_TOOL_OUTPUT_CHARS and marks it", async () => {
    const { ctx, events } = hookContext({ MAX_TOOL_OUTPUT_CHARS: "100" });
    expect(
      (await outputTruncationHook.afterTool?.(ctx, call("x"), { content: "a".repeat(100) }))
        ?.content,
    ).toBe("a".repeat(100));
    const cut = await outputTruncationHook.afterTool?.(ctx, call("x"), {
      content: "a".repeat(101),
    });
    expect(cut?.content).toBe(`${"a".repeat(100)}\n[output truncated]`);
    expect(events.map((e) => e.kind)).toEqual(["output_truncated"]);
  });
});

describe("loop detection", () => {
  it("warns from the threshold on with the reference's words, naming the path and the count", async () => {
    const { ctx, events } = hookContext({ LOOP_DETECTION_THRESHOLD: "3" });
    const runAfter = (r: ToolResult) => loopDetectionHook.afterTool?.(ctx, call("edit_file"), r);
    expect((await runAfter(wrote("a.md")))?.content).toBe("ok");
    expect((await runAfter(wrote("a.md")))?.content).toBe("ok");
    const third = await runAfter(wrote("a.md"));
    expect(third?.content).toBe(
      "ok\n\n[harness] You've edited a.md 3 times. Consider stepping back: is your approach correct, or should you try a fundamentally different solution?",
    );
    expect((await runAfter(wrote("a.md")))?.content).toContain("You've edited a.md 4 times.");
    expect(events).toMatchObject([
      { kind: "loop_warning", path: "a.md", detail: "3 edits" },
      { kind: "loop_warning", path: "a.md", detail: "4 edits" },
    ]);
  });

  it("uses the documented default threshold of 3", () => {
    expect(hookContext().ctx.config.loopDetectionThreshold).toBe(3);
  });

  it("resets when another file is edited or any verification runs; failures neither count nor reset", async () => {
    const { ctx, events } = hookContext({ LOOP_DETECTION_THRESHOLD: "3" });
    const step = (name: string, r: ToolResult) => loopDetectionHook.afterTool?.(ctx, call(name), r);
    const twice = async () => {
      await step("edit_file", wrote("a.md"));
      await step("edit_file", wrote("a.md"));
    };
    await twice();
    await step("edit_file", wrote("b.md"));
    await twice();
    // A read or a search of any file, even one without matches, and a passing run reset it.
    await step("read_file", read("other.md"));
    await twice();
    await step("grep_files", { content: "No matches", effects: { searched: [] } });
    await twice();
    await step("run_code", { content: "run_code: exit 0", effects: { ran: [] } });
    await twice();
    // A failing run verifies nothing: the third edit warns.
    await step("run_code", { content: "exit 1", isError: true, effects: { ran: ["a.md"] } });
    await step("edit_file", { content: "not unique", isError: true });
    expect(events).toEqual([]);
    expect((await step("edit_file", wrote("a.md")))?.content).toContain("edited a.md 3 times");
    // Tools with no effects on files leave the count alone.
    await step("web_fetch", { content: "page" });
    expect((await step("edit_file", wrote("a.md")))?.content).toContain("edited a.md 4 times");
    const off = hookContext({ LOOP_DETECTION_THRESHOLD: "0" });
    for (let i = 0; i < 5; i++) await loopDetectionHook.afterTool?.(off.ctx, call("w"), wrote("a"));
    expect(off.events).toEqual([]);
  });

  it("keeps its count in hook state, so a new context over the same state goes on counting", async () => {
    const first = hookContext({ LOOP_DETECTION_THRESHOLD: "3" });
    await loopDetectionHook.afterTool?.(first.ctx, call("edit_file"), wrote("a.md"));
    await loopDetectionHook.afterTool?.(first.ctx, call("edit_file"), wrote("a.md"));
    const restarted = {
      ...hookContext({ LOOP_DETECTION_THRESHOLD: "3" }).ctx,
      state: first.ctx.state,
    };
    const third = await loopDetectionHook.afterTool?.(restarted, call("edit_file"), wrote("a.md"));
    expect(third?.content).toContain("You've edited a.md 3 times.");
  });
});

describe("verification gate", () => {
  it("reminds once per batch of changes that were not verified", async () => {
    const { ctx, events } = hookContext();
    expect(await verificationHook.beforeComplete?.(ctx, "done")).toBeUndefined();
    await verificationHook.afterTool?.(ctx, call("write_file"), wrote("report.md"));
    await verificationHook.afterTool?.(ctx, call("write_file"), wrote("notes.md"));
    const first = await verificationHook.beforeComplete?.(ctx, "done");
    expect(first?.continueWith).toBe(
      "[harness] You modified files but haven't verified the changes: report.md, notes.md. Please verify before finishing: re-read each changed file (read_file, or search it with grep_files); check that every requirement of the request was addressed; fix anything wrong. Only then give your final answer.",
    );
    expect(await verificationHook.beforeComplete?.(ctx, "done")).toBeUndefined();
    await verificationHook.afterTool?.(ctx, call("edit_file"), wrote("report.md"));
    expect((await verificationHook.beforeComplete?.(ctx, "done"))?.continueWith).toContain(
      "report.md, notes.md",
    );
    expect(events.map((e) => e.kind)).toEqual(["verification", "verification"]);
  });

  it("does not fire once the changes are read back or searched, or when switched off", async () => {
    const { ctx } = hookContext();
    await verificationHook.afterTool?.(ctx, call("write_file"), wrote("a.md"));
    await verificationHook.afterTool?.(ctx, call("write_file"), wrote("b.md"));
    await verificationHook.afterTool?.(ctx, call("read_file"), read("a.md"));
    await verificationHook.afterTool?.(ctx, call("grep_files"), {
      content: "",
      effects: { searched: ["b.md"] },
    });
    expect(await verificationHook.beforeComplete?.(ctx, "done")).toBeUndefined();
    const off = hookContext({ VERIFY_BEFORE_COMPLETE: "false" });
    await verificationHook.afterTool?.(off.ctx, call("write_file"), wrote("a.md"));
    expect(await verificationHook.beforeComplete?.(off.ctx, "done")).toBeUndefined();
    const failed = hookContext();
    await verificationHook.afterTool?.(failed.ctx, call("write_file"), {
      content: "no",
      isError: true,
      effects: { wrote: ["a"] },
    });
    expect(await verificationHook.beforeComplete?.(failed.ctx, "done")).toBeUndefined();
  });

  it("counts a passing run_code after the last change as verifying the batch, a failing one not", async () => {
    const step = (ctx: HookContext, name: string, r: ToolResult) =>
      verificationHook.afterTool?.(ctx, call(name), r);
    const ran = { content: "run_code: exit 0", effects: { ran: [] } };
    // A snippet run (no workspace file ran) after the last write: nothing left to verify.
    const passing = hookContext();
    await step(passing.ctx, "write_file", wrote("calc.js"));
    await step(passing.ctx, "write_file", wrote("README.md"));
    await step(passing.ctx, "run_code", ran);
    expect(await verificationHook.beforeComplete?.(passing.ctx, "done")).toBeUndefined();
    // A run before the last write verifies only what came before it; a failing run nothing.
    const { ctx } = hookContext();
    await step(ctx, "write_file", wrote("calc.js"));
    await step(ctx, "run_code", ran);
    await step(ctx, "edit_file", wrote("calc.js"));
    await step(ctx, "run_code", {
      content: "exit 1",
      isError: true,
      effects: { ran: ["calc.js"] },
    });
    expect((await verificationHook.beforeComplete?.(ctx, "done"))?.continueWith).toContain(
      "haven't verified the changes: calc.js.",
    );
  });

  it("names only the tools the agent has, and run_code only when a changed file is code", async () => {
    const remind = async (tools: readonly string[], file = "a.md") => {
      const { ctx } = hookContext({}, [], tools);
      await verificationHook.afterTool?.(ctx, call("write_file"), wrote(file));
      return (await verificationHook.beforeComplete?.(ctx, "done"))?.continueWith ?? "";
    };
    expect(await remind(TEST_TOOLS, "src/calc.ts")).toContain(
      "Please verify before finishing: run the code you wrote (run_code); re-read each changed file",
    );
    expect(await remind(TEST_TOOLS, "calc.md")).not.toContain("run_code");
    expect(await remind(["write_file", "read_file"], "calc.js")).not.toContain("run_code");
    const readOnly = await remind(["write_file", "read_file"]);
    expect(readOnly).toContain("re-read each changed file (read_file);");
    expect(readOnly).not.toMatch(/run_code|grep_files/);
    const grepOnly = await remind(["write_file", "grep_files"]);
    expect(grepOnly).toContain("search each changed file (grep_files)");
    expect(grepOnly).not.toMatch(/run_code|read_file/);
    const none = await remind(["write_file"]);
    expect(none).toContain("look over each change again");
    expect(none).not.toMatch(/run_code|read_file|grep_files/);
  });
});

describe("tool events and the runner", () => {
  it("publishes each call and its final result, in hook order", async () => {
    const { ctx, events } = hookContext({ COMPACT_OUTPUT_LINES: "2" });
    const runner = new HookRunner([outputCompactionHook, toolEventsHook]);
    expect(await runner.beforeTool(ctx, call("read_file", { path: "a.md" }))).toBeUndefined();
    await runner.afterTool(ctx, call("read_file", { path: "a.md" }), { content: lines(5) });
    expect(events.map((e) => e.kind)).toEqual(["tool_call", "output_compacted", "tool_result"]);
    expect(events[0]).toMatchObject({
      tool: "read_file",
      path: "a.md",
      text: "Calling read_file on a.md",
    });
    expect(events[2]?.text).toBe("read_file returned 3 lines");
  });
});
