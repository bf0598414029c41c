/**
 * The workspace and checkpoint tools over a fake in-memory WorkspaceApi: input validation, the
 * output each tool gives the model, the effects hooks see, the meta passed to the workspace and
 * the `checkpoint` events emitted when the workspace took one.
 */
import { describe, expect, it } from "vitest";
import type { Config } from "../../../../src/config/config.ts";
import type { AttachedFile, HarnessEvent, ToolResult } from "../../../../src/loop/contracts.ts";
import { WORKSPACE_TOOLS } from "../../../../src/tools/files/workspace-tools.ts";
import type { CheckpointInfo, WorkspaceApi, WsResult } from "../../../../src/workspace/types.ts";
import { toolContext } from "../../../helpers/tool-context.ts";

interface Fake {
  api: WorkspaceApi;
  calls: Array<{ method: string; args: unknown[] }>;
  files: Map<string, string>;
  /** The checkpoint id the next write or edit reports as taken. */
  nextCheckpoint: string | null;
  checkpoints: CheckpointInfo[];
}

function fakeWorkspace(): Fake {
  const fake: Fake = {
    calls: [],
    files: new Map(),
    nextCheckpoint: null,
    checkpoints: [],
    api: undefined as unknown as WorkspaceApi,
  };
  const record = (method: string, args: unknown[]) => fake.calls.push({ method, args });
  const taken = () => {
    const id = fake.nextCheckpoint;
    fake.nextCheckpoint = null;
    return id;
  };
  const missing = (path: string): { ok: false; error: string } => ({
    ok: false,
    error: `${path} not found`,
  });
  fake.api = {
    memory: async () => null,
    memoryWrite: async () => ({ ok: false, error: "no memory in this fake" }),
    async read(path, options) {
      record("read", [path, options]);
      const text = fake.files.get(path);
      if (text === undefined) return missing(path);
      const lines = text.split("\n");
      const from = options?.offset ?? 1;
      const to = Math.min(lines.length, from + (options?.limit ?? 2000) - 1);
      const content = lines.slice(from - 1, to).join("\n");
      return {
        ok: true,
        value: { path, content, totalLines: lines.length, fromLine: from, toLine: to },
      };
    },
    async write(path, content, meta) {
      record("write", [path, content, meta]);
      if (typeof content !== "string") throw new Error("the tools write text");
      const created = !fake.files.has(path);
      fake.files.set(path, content);
      const updatedAt = new Date().toISOString();
      return {
        ok: true,
        value: { path, bytes: content.length, created, checkpoint: taken(), updatedAt },
      };
    },
    async edit(path, oldText, newText, meta) {
      record("edit", [path, oldText, newText, meta]);
      const text = fake.files.get(path);
      if (text === undefined) return missing(path);
      if (!text.includes(oldText)) return { ok: false, error: `old_text not found in ${path}` };
      const next = text.replace(oldText, () => newText);
      fake.files.set(path, next);
      return { ok: true, value: { path, bytes: next.length, checkpoint: taken() } };
    },
    async remove(path, meta) {
      record("remove", [path, meta]);
      if (!fake.files.delete(path)) return missing(path);
      return { ok: true, value: { path, checkpoint: taken() } };
    },
    async download(path) {
      record("download", [path]);
      const text = fake.files.get(path);
      if (text === undefined) return missing(path);
      const bytes = new TextEncoder().encode(text);
      const entry = { path, size: bytes.byteLength, updatedAt: "2026-01-01T00:00:00Z" };
      return { ok: true, value: { entry, bytes, hash: "f".repeat(64) } };
    },
    async list(prefix) {
      record("list", [prefix]);
      const entries = [...fake.files]
        .filter(([p]) => p.startsWith(prefix ?? ""))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([path, text]) => ({ path, size: text.length, updatedAt: "2026-01-01T00:00:00Z" }));
      return { ok: true, value: { entries, total: entries.length } };
    },
    async snapshot(paths) {
      record("snapshot", [paths]);
      const entries = [...fake.files]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([path, text]) => ({ path, size: text.length, updatedAt: "2026-01-01T00:00:00Z" }));
      const texts = Object.fromEntries(paths.map((p) => [p, fake.files.get(p) ?? null]));
      return { ok: true, value: { entries, total: entries.length, texts } };
    },
    async versions() {
      return { ok: true, value: { versions: [] } };
    },
    async readAt() {
      return { ok: false, error: "no checkpoints" };
    },
    async grep(pattern, options) {
      record("grep", [pattern, options]);
      const regex = new RegExp(pattern);
      const matches = [...fake.files].flatMap(([path, text]) =>
        text
          .split("\n")
          .map((line, i) => ({ path, line: i + 1, text: line }))
          .filter((m) => regex.test(m.text)),
      );
      const max = options?.maxResults ?? 50;
      return {
        ok: true,
        value: {
          matches: matches.slice(0, max),
          filesSearched: fake.files.size,
          truncated: matches.length > max,
        },
      };
    },
    async checkpointCreate(label, meta) {
      record("checkpointCreate", [label, meta]);
      const info = {
        id: `cp-${fake.checkpoints.length + 1}`,
        label,
        createdAt: "2026-01-02T03:04:05.000Z",
        files: fake.files.size,
        automatic: false,
      };
      fake.checkpoints.unshift(info);
      return { ok: true, value: info };
    },
    async checkpointList() {
      record("checkpointList", []);
      return { ok: true, value: { checkpoints: fake.checkpoints } };
    },
    async checkpointRestore(
      id,
      meta,
    ): Promise<WsResult<{ restored: string; backup: string; files: number }>> {
      record("checkpointRestore", [id, meta]);
      if (!fake.checkpoints.some((c) => c.id === id)) {
        return { ok: false, error: `unknown checkpoint "${id}"` };
      }
      return { ok: true, value: { restored: id, backup: "cp-9", files: 4 } };
    },
    async taskCheckpoint() {
      return null;
    },
    async endNote() {
      return { ok: true, value: { written: [] } };
    },
  };
  return fake;
}

function setup(): {
  fake: Fake;
  events: HarnessEvent[];
  attached: AttachedFile[];
  run: (name: string, input: unknown) => Promise<ToolResult>;
} {
  const fake = fakeWorkspace();
  const events: HarnessEvent[] = [];
  const attached: AttachedFile[] = [];
  const context = toolContext({
    attach: (file) => {
      attached.push(file);
      return file.bytes.byteLength > 10
        ? { ok: false, error: `${file.path} is too large for this fake` }
        : { ok: true, artifactId: `file:${file.path}`, inline: true };
    },
    taskId: "task-7",
    contextId: "ctx-1",
    agent: "writer",
    config: {} as Config,
    workspace: fake.api,
    db: {} as D1Database,
    fetch: () => Promise.reject(new Error("no network in tool tests")),
    emit: (event) => events.push(event),
  });
  const run = (name: string, input: unknown) => {
    const tool = WORKSPACE_TOOLS.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool.run(input as Record<string, unknown>, context);
  };
  return { fake, events, attached, run };
}

describe("workspace tool catalog", () => {
  it("offers the nine tools with their domains, schemas and descriptions", () => {
    expect(WORKSPACE_TOOLS.map((t) => [t.name, t.domain])).toEqual([
      ["read_file", "workspace"],
      ["write_file", "workspace"],
      ["edit_file", "workspace"],
      ["list_files", "workspace"],
      ["grep_files", "workspace"],
      ["attach_file", "workspace"],
      ["checkpoint_create", "checkpoints"],
      ["checkpoint_list", "checkpoints"],
      ["checkpoint_restore", "checkpoints"],
    ]);
    for (const tool of WORKSPACE_TOOLS) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.description.length).toBeGreaterThan(80);
    }
    const required = (name: string) =>
      WORKSPACE_TOOLS.find((t) => t.name === name)?.inputSchema.required;
    expect(required("edit_file")).toEqual(["path", "old_text", "new_text"]);
    expect(required("grep_files")).toEqual(["pattern"]);
    expect(required("attach_file")).toEqual(["path"]);
  });
});

describe("file tools", () => {
  it("attach_file: hands the file's bytes and type on, and says what the person receives", async () => {
    const { fake, attached, run } = setup();
    fake.files.set("out/notes.md", "# Done");
    const result = await run("attach_file", { path: "out/notes.md", description: "The notes" });
    expect(result).toEqual({
      content:
        "Attached out/notes.md (6 bytes) as artifact file:out/notes.md: the person receives it with its bytes.",
    });
    expect(attached).toEqual([
      {
        path: "out/notes.md",
        bytes: new TextEncoder().encode("# Done"),
        mediaType: "text/markdown; charset=utf-8",
        description: "The notes",
      },
    ]);
    expect(await run("attach_file", { path: "missing.md" })).toMatchObject({ isError: true });
    fake.files.set("big.txt", "more than ten bytes");
    expect(await run("attach_file", { path: "big.txt" })).toEqual({
      content: "big.txt is too large for this fake",
      isError: true,
    });
  });

  it("read_file: header, numbered lines, paging hint and effects", async () => {
    const { fake, run } = setup();
    fake.files.set(
      "notes/plan.md",
      Array.from({ length: 120 }, (_, i) => `step ${i + 1}`).join("\n"),
    );
    const result = await run("read_file", { path: "notes/plan.md", offset: 12, limit: 2 });
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe(
      "notes/plan.md lines 12-13 of 120\n   12| step 12\n   13| step 13\n(107 more lines: read_file with offset 14)",
    );
    expect(result.effects).toEqual({ read: ["notes/plan.md"] });
    expect(fake.calls[0]).toEqual({
      method: "read",
      args: ["notes/plan.md", { offset: 12, limit: 2 }],
    });
    const whole = await run("read_file", { path: "notes/plan.md" });
    expect(whole.content.split("\n")).toHaveLength(121);
    expect(fake.calls[1]?.args[1]).toEqual({});
  });

  it("read_file: refuses bad input and passes workspace refusals on", async () => {
    const { fake, run } = setup();
    for (const input of [
      {},
      { path: "" },
      { path: "a", offset: 0 },
      { path: "a", limit: "3" },
      { path: 5 },
    ]) {
      const result = await run("read_file", input);
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(
        /^Invalid input for read_file: (path|offset|limit): .+Expected \{ path: string/,
      );
    }
    expect(fake.calls).toHaveLength(0);
    expect(await run("read_file", { path: "nope.md" })).toEqual({
      content: "nope.md not found",
      isError: true,
    });
  });

  it("write_file: created or overwritten, bytes, meta, effects; emits a taken checkpoint", async () => {
    const { fake, events, run } = setup();
    const created = await run("write_file", { path: "a.md", content: "hello" });
    expect(created).toEqual({ content: "Created a.md (5 bytes).", effects: { wrote: ["a.md"] } });
    expect(fake.calls[0]).toEqual({
      method: "write",
      args: ["a.md", "hello", { taskId: "task-7", agent: "writer" }],
    });
    expect(events).toEqual([]);
    fake.nextCheckpoint = "cp-2";
    const over = await run("write_file", { path: "a.md", content: "hello again" });
    expect(over.content).toMatch(/^Overwrote a\.md \(11 bytes\)\. Checkpoint cp-2 /);
    expect(over.effects).toEqual({ wrote: ["a.md"] });
    expect(events).toEqual([
      {
        kind: "checkpoint",
        text: "Checkpoint cp-2 before overwriting a.md",
        tool: "write_file",
        path: "a.md",
        detail: "cp-2",
      },
    ]);
    const bad = await run("write_file", { path: "a.md", content: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/content: /);
  });

  it("edit_file: replaces, reports size, emits a taken checkpoint, passes refusals on", async () => {
    const { fake, events, run } = setup();
    fake.files.set("doc.md", "alpha beta");
    fake.nextCheckpoint = "cp-5";
    const edited = await run("edit_file", { path: "doc.md", old_text: "beta", new_text: "gamma" });
    expect(edited.content).toMatch(/^Edited doc\.md \(now 11 bytes\)\. Checkpoint cp-5 /);
    expect(edited.effects).toEqual({ wrote: ["doc.md"] });
    expect(fake.calls[0]?.args).toEqual([
      "doc.md",
      "beta",
      "gamma",
      { taskId: "task-7", agent: "writer" },
    ]);
    expect(events[0]).toMatchObject({
      kind: "checkpoint",
      text: "Checkpoint cp-5 before editing doc.md",
      detail: "cp-5",
    });
    const plain = await run("edit_file", { path: "doc.md", old_text: "gamma", new_text: "" });
    expect(plain.content).toBe("Edited doc.md (now 6 bytes).");
    expect(events).toHaveLength(1);
    expect(await run("edit_file", { path: "doc.md", old_text: "zeta", new_text: "x" })).toEqual({
      content: "old_text not found in doc.md",
      isError: true,
    });
    const bad = await run("edit_file", { path: "doc.md", old_text: "", new_text: "x" });
    expect(bad).toMatchObject({
      isError: true,
      content: expect.stringMatching(/old_text: give the exact text/),
    });
    expect((await run("edit_file", { path: "doc.md", old_text: "a" })).isError).toBe(true);
  });

  it("list_files: one path per line with size, then the count", async () => {
    const { fake, run } = setup();
    fake.files.set("b.md", "bb");
    fake.files.set("a/x.md", "xxx");
    expect((await run("list_files", {})).content).toBe("a/x.md (3 bytes)\nb.md (2 bytes)\n2 files");
    expect((await run("list_files", { prefix: "a/" })).content).toBe(
      "a/x.md (3 bytes)\n1 file under a/",
    );
    expect(fake.calls[1]?.args).toEqual(["a/"]);
    expect((await run("list_files", { prefix: "zzz/" })).content).toBe("0 files under zzz/");
    expect((await run("list_files", { prefix: 3 })).isError).toBe(true);
  });

  it("grep_files: path:line: text lines, a summary and the matched paths as effects", async () => {
    const { fake, run } = setup();
    fake.files.set("a.md", "foo\nbar\nfood");
    fake.files.set("b.md", "nothing");
    fake.files.set("c.md", "more foo");
    const found = await run("grep_files", { pattern: "foo", path: "**/*.md" });
    expect(found.content).toBe(
      "a.md:1: foo\na.md:3: food\nc.md:1: more foo\n3 matches in 2 files (searched 3 files).",
    );
    expect(found.effects).toEqual({ searched: ["a.md", "c.md"] });
    expect(fake.calls[0]?.args).toEqual(["foo", { path: "**/*.md" }]);
    const capped = await run("grep_files", { pattern: "foo", max_results: 1 });
    expect(fake.calls[1]?.args).toEqual(["foo", { maxResults: 1 }]);
    expect(capped.content).toMatch(
      /^a\.md:1: foo\n1 match in 1 file \(searched 3 files\)\.\nResults were cut off/,
    );
    const none = await run("grep_files", { pattern: "zebra" });
    expect(none).toEqual({ content: "No matches (searched 3 files).", effects: { searched: [] } });
    for (const input of [
      {},
      { pattern: "" },
      { pattern: "a", max_results: 0 },
      { pattern: "a", max_results: 2.5 },
    ]) {
      expect((await run("grep_files", input)).isError).toBe(true);
    }
  });
});

describe("checkpoint tools", () => {
  it("create, list and restore, with the backup emitted as a checkpoint event", async () => {
    const { fake, events, run } = setup();
    fake.files.set("a.md", "a");
    expect((await run("checkpoint_list", {})).content).toBe("No checkpoints yet.");
    const created = await run("checkpoint_create", { label: "  draft one  " });
    expect(created.content).toBe(
      'Checkpoint cp-1 "draft one" saved (1 file). Restore it with checkpoint_restore and id cp-1.',
    );
    expect(fake.calls.at(-1)?.args).toEqual(["draft one", { taskId: "task-7", agent: "writer" }]);
    expect((await run("checkpoint_list", {})).content).toBe(
      "cp-1  2026-01-02T03:04:05.000Z  manual  1 file  draft one\n1 checkpoint",
    );
    const restored = await run("checkpoint_restore", { id: "cp-1" });
    expect(restored.content).toBe(
      "Restored checkpoint cp-1 (4 files). The state before the restore was saved as cp-9; restore cp-9 to undo.",
    );
    expect(events).toEqual([
      {
        kind: "checkpoint",
        text: "Checkpoint cp-9 before restoring cp-1",
        tool: "checkpoint_restore",
        detail: "cp-9",
      },
    ]);
    expect(await run("checkpoint_restore", { id: "cp-77" })).toEqual({
      content: 'unknown checkpoint "cp-77"',
      isError: true,
    });
    expect((await run("checkpoint_create", { label: "" })).isError).toBe(true);
    expect((await run("checkpoint_create", { label: "x".repeat(201) })).isError).toBe(true);
    expect((await run("checkpoint_restore", {})).isError).toBe(true);
  });
});
