/**
 * The workspace Durable Object through its client (`workspaceFor(env.WORKSPACES, agent, owner)`):
 * files, edits, the manifest, grep, path confinement, limits, checkpoints (manual, automatic,
 * per task, reversible restore), content-addressed blobs in R2 and isolation between owners.
 * Every test uses its own owner (storage is shared within the file).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/platform/hex.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import { blobKey } from "../../src/workspace/files/blobs.ts";
import { Checkpoints } from "../../src/workspace/files/checkpoints.ts";
import { searchFiles } from "../../src/workspace/files/grep.ts";
import { mayBacktrack } from "../../src/workspace/files/grep-pattern.ts";
import { type FileRow, Manifest } from "../../src/workspace/files/manifest.ts";
import { workspaceKey } from "../../src/workspace/keys.ts";
import { GREP_MAX_BYTES, MAX_FILE_BYTES, MAX_FILES } from "../../src/workspace/limits.ts";
import type { WorkspaceApi } from "../../src/workspace/types.ts";
import { EXPECTED_CRASH } from "../helpers/crash.ts";
import { ok, refused } from "../helpers/results.ts";

const AGENT = "ws-test-agent";
let counter = 0;

function fresh(): { owner: string; ws: WorkspaceApi } {
  counter += 1;
  const owner = `owner-${Date.now().toString(36)}-${counter}`;
  return { owner, ws: workspaceFor(env.WORKSPACES, AGENT, owner) };
}

const T1 = { taskId: "task-1" };
const numbered = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

describe("workspace files", () => {
  it("writes and reads back, whole or by offset and limit", async () => {
    const { ws } = fresh();
    const text = `${numbered(120)}\n`;
    expect(ok(await ws.write("notes/plan.md", text, T1))).toMatchObject({
      path: "notes/plan.md",
      bytes: text.length,
      created: true,
    });
    const whole = ok(await ws.read("notes/plan.md"));
    expect(whole).toMatchObject({ content: text, fromLine: 1, toLine: 120, totalLines: 120 });
    const part = ok(await ws.read("./notes//plan.md", { offset: 10, limit: 3 }));
    expect(part).toMatchObject({
      path: "notes/plan.md",
      fromLine: 10,
      toLine: 12,
      totalLines: 120,
    });
    expect(part.content).toBe("line 10\nline 11\nline 12\n");
    expect(refused(await ws.read("notes/plan.md", { offset: 121 }))).toMatch(/past the end.*120/);
    expect(refused(await ws.read("notes/missing.md"))).toMatch(/not found/);
  });

  it("caps a read at 2,000 lines and 200,000 characters", async () => {
    const { ws } = fresh();
    ok(await ws.write("many.txt", numbered(2_500), T1));
    expect(ok(await ws.read("many.txt"))).toMatchObject({ fromLine: 1, toLine: 2_000 });
    expect(ok(await ws.read("many.txt", { offset: 2_001 }))).toMatchObject({ toLine: 2_500 });
    const wide = Array.from({ length: 10 }, () => "x".repeat(30_000)).join("\n");
    ok(await ws.write("wide.txt", wide, T1));
    const read = ok(await ws.read("wide.txt"));
    expect(read.toLine).toBe(6);
    expect(read.content.length).toBeLessThanOrEqual(200_000);
  });

  it("overwrites a file", async () => {
    const { ws } = fresh();
    ok(await ws.write("a.txt", "one", T1));
    expect(ok(await ws.write("a.txt", "two", T1)).created).toBe(false);
    expect(ok(await ws.read("a.txt")).content).toBe("two");
    expect(ok(await ws.list()).total).toBe(1);
  });

  it("edits one exact occurrence and explains refusals", async () => {
    const { ws } = fresh();
    ok(await ws.write("doc.md", "alpha beta\ngamma beta\n", T1));
    expect(ok(await ws.edit("doc.md", "alpha", "ALPHA $& $1", T1)).path).toBe("doc.md");
    expect(ok(await ws.read("doc.md")).content).toBe("ALPHA $& $1 beta\ngamma beta\n");
    expect(refused(await ws.edit("doc.md", "delta", "x", T1))).toMatch(
      /not found in doc\.md.*read the file again/,
    );
    expect(refused(await ws.edit("doc.md", "beta", "x", T1))).toMatch(
      /occurs 2 times in doc\.md; include more surrounding text/,
    );
    expect(refused(await ws.edit("nope.md", "a", "b", T1))).toMatch(/nope\.md does not exist/);
    expect(ok(await ws.read("doc.md")).content).toBe("ALPHA $& $1 beta\ngamma beta\n");
  });

  it("lists from the manifest, sorted, optionally under a prefix", async () => {
    const { owner, ws } = fresh();
    ok(await ws.write("b/2.txt", "two", T1));
    ok(await ws.write("a/1.txt", "one", T1));
    ok(await ws.write("a.txt", "three", T1));
    const all = ok(await ws.list());
    expect(all.total).toBe(3);
    expect(all.entries.map((e) => e.path)).toEqual(["a.txt", "a/1.txt", "b/2.txt"]);
    expect(all.entries[0]).toMatchObject({ size: 5, updatedAt: expect.any(String) });
    expect(ok(await ws.list("a/")).entries.map((e) => e.path)).toEqual(["a/1.txt"]);
    expect(ok(await ws.list("a")).total).toBe(2);
    expect(refused(await ws.list("../"))).toMatch(/\.\./);
    // The listing never looks at the bucket: with a blob gone, the file is still listed.
    await env.FILES.delete(blobKey({ agent: AGENT, owner }, await sha256Hex(enc("two"))));
    expect(ok(await ws.list("b/")).total).toBe(1);
    // Blobs never change, so the object serves the text it wrote from memory.
    expect(ok(await ws.read("b/2.txt")).content).toBe("two");
  });
});

const enc = (text: string) => new TextEncoder().encode(text);

describe("workspace grep", () => {
  it("finds regex matches with line numbers, filtered by prefix or glob", async () => {
    const { ws } = fresh();
    ok(await ws.write("docs/a.md", "intro\nfoo bar\nnothing\nfooo\n", T1));
    ok(await ws.write("docs/deep/b.md", "fo\nfoo\n", T1));
    ok(await ws.write("src/c.txt", `foo${"z".repeat(400)}\n`, T1));
    const all = ok(await ws.grep("fo{2,}"));
    expect(all.matches).toEqual([
      { path: "docs/a.md", line: 2, text: "foo bar" },
      { path: "docs/a.md", line: 4, text: "fooo" },
      { path: "docs/deep/b.md", line: 2, text: "foo" },
      { path: "src/c.txt", line: 1, text: `foo${"z".repeat(297)}` },
    ]);
    expect(all).toMatchObject({ filesSearched: 3, truncated: false });
    expect(ok(await ws.grep("foo", { path: "docs/" })).filesSearched).toBe(2);
    expect(ok(await ws.grep("foo", { path: "docs/*.md" })).matches.map((m) => m.path)).toEqual([
      "docs/a.md",
      "docs/a.md",
    ]);
    const deep = ok(await ws.grep("foo", { path: "**/*.md" }));
    expect(new Set(deep.matches.map((m) => m.path))).toEqual(
      new Set(["docs/a.md", "docs/deep/b.md"]),
    );
    expect(ok(await ws.grep("foo", { path: "*.txt" })).matches.map((m) => m.path)).toEqual([
      "src/c.txt",
    ]);
    const capped = ok(await ws.grep("o", { maxResults: 2 }));
    expect(capped.matches).toHaveLength(2);
    expect(capped.truncated).toBe(true);
  });

  it("refuses invalid and overlong patterns", async () => {
    const { ws } = fresh();
    expect(refused(await ws.grep("(unclosed"))).toMatch(/invalid regular expression/);
    expect(refused(await ws.grep("a".repeat(501)))).toMatch(/limit is 500/);
    expect(refused(await ws.grep("a", { path: "../x/*" }))).toMatch(/invalid path filter/);
  });

  it("reads at most 6 blobs at once and stops once enough matches are found", async () => {
    let open = 0;
    let peak = 0;
    let reads = 0;
    const reader = {
      async text(_hash: string): Promise<string | null> {
        open += 1;
        reads += 1;
        peak = Math.max(peak, open);
        await new Promise((resolve) => setTimeout(resolve, 2));
        open -= 1;
        return "hit\nmiss\nhit\n";
      },
    };
    const rows: FileRow[] = Array.from({ length: 600 }, (_, i) => ({
      path: `f/${String(i).padStart(4, "0")}.txt`,
      hash: `h${i}`,
      size: 13,
      updated_at: "",
      seq: i,
    }));
    const few = await searchFiles(rows, reader, /hit/, 20);
    expect(peak).toBeLessThanOrEqual(6);
    expect(few.matches).toHaveLength(20);
    expect(few.matches[0]).toEqual({ path: "f/0000.txt", line: 1, text: "hit" });
    expect(few.truncated).toBe(true);
    expect(reads).toBeLessThan(20);
    reads = 0;
    const capped = await searchFiles(rows, reader, /nothing/, 50);
    expect(capped).toMatchObject({ filesSearched: 500, truncated: true, matches: [] });
    expect(reads).toBe(500);
    expect(peak).toBe(6);
  });

  it("matches a pattern that backtracks catastrophically in time linear in the line", async () => {
    // V8's RegExp takes about 2^n steps for `(a+)+$` on n a's and a '!': this one would not end.
    const { ws } = fresh();
    ok(await ws.write("long.txt", `${"a".repeat(20_000)}!\naaaa\n`, T1));
    const found = ok(await ws.grep("(a+)+$"));
    expect(found.matches).toEqual([{ path: "long.txt", line: 2, text: "aaaa" }]);
    // Polynomial shapes too, and the usual patterns keep their JavaScript meaning.
    expect(ok(await ws.grep("a*a*a*a*a*b")).matches).toEqual([]);
    expect(ok(await ws.grep("^a{4}$|^x\\d+$")).matches.map((m) => m.line)).toEqual([2]);
  });

  it("refuses lookaround and backreferences, which no linear-time engine has, saying why", async () => {
    const { ws } = fresh();
    for (const pattern of ["foo(?=bar)", "(?<!x)y", "(a)\\1"])
      expect(refused(await ws.grep(pattern))).toMatch(
        /linear in the text, so lookahead, lookbehind and backreferences/,
      );
    // Without repetition V8 matches in linear time itself: no second engine needed.
    expect(mayBacktrack("TODO|FIXME|\\bfoo\\b|[*+?]|\\*|(?:ab)|(?<n>c)")).toBe(false);
    expect(
      ["a*", "a+", "a?", "a{2}", "(?=a)", "(?!a)", "(?<=a)", "(?<!a)", "(a)\\1", "\\k<n>"].filter(
        mayBacktrack,
      ),
    ).toHaveLength(10);
  });

  it("reads at most GREP_MAX_BYTES in one grep", async () => {
    const reader = { text: async () => "miss\n" };
    const size = 1024 * 1024;
    const rows: FileRow[] = Array.from({ length: 12 }, (_, i) => ({
      path: `big/${String(i).padStart(2, "0")}.txt`,
      hash: `b${i}`,
      size,
      updated_at: "",
      seq: i,
    }));
    const found = await searchFiles(rows, reader, /hit/, 50);
    expect(found).toMatchObject({ filesSearched: GREP_MAX_BYTES / size, truncated: true });
  });
});

describe("workspace paths and limits", () => {
  it("refuses every escape attempt and overlong or deep paths", async () => {
    const { owner, ws } = fresh();
    const bad = [
      "../x",
      "a/../../x",
      "/etc/passwd",
      "a\\b",
      "%2e%2e/x",
      "a\u0000b",
      "a\nb",
      Array.from({ length: 17 }, () => "d").join("/"),
      "x".repeat(513),
      "",
    ];
    for (const path of bad) {
      const error = refused(await ws.write(path, "x", T1));
      expect(error.length, path).toBeGreaterThan(10);
      refused(await ws.read(path));
      refused(await ws.edit(path, "x", "y", T1));
    }
    expect(ok(await ws.list()).total).toBe(0);
    const stored = await env.FILES.list({ prefix: `agents/${AGENT}/users/${owner}/` });
    expect(stored.objects).toHaveLength(0);
    ok(await ws.write(Array.from({ length: 16 }, () => "d").join("/"), "x", T1));
  });

  it("refuses a file over 1 MiB, with its size", async () => {
    const { ws } = fresh();
    const error = refused(await ws.write("big.txt", "a".repeat(MAX_FILE_BYTES + 1), T1));
    expect(error).toContain(String(MAX_FILE_BYTES + 1));
    expect(refused(await ws.write("big.txt", "é".repeat(MAX_FILE_BYTES / 2 + 1), T1))).toContain(
      String(MAX_FILE_BYTES + 2),
    );
    ok(await ws.write("big.txt", `${"a".repeat(MAX_FILE_BYTES - 4)}MARK`, T1));
    expect(refused(await ws.edit("big.txt", "MARK", "MARKS", T1))).toContain(
      `${MAX_FILE_BYTES + 1} bytes; the limit is`,
    );
    expect(ok(await ws.list()).entries[0]?.size).toBe(MAX_FILE_BYTES);
  });
});

describe("workspace file count", () => {
  it("refuses a new file in a full workspace but still overwrites", async () => {
    const { owner, ws } = fresh();
    ok(await ws.write("keep.md", "v1", T1));
    const stub = env.WORKSPACES.get(env.WORKSPACES.idFromName(workspaceKey(AGENT, owner)));
    // Rows written behind the object's back: a new instance (the object keeps its manifest in
    // memory once read) reads them.
    await runInDurableObject(stub, (_instance, state) => {
      for (let i = 1; i < MAX_FILES; i++) {
        state.storage.sql.exec(
          "INSERT INTO files (path, hash, size, updated_at, seq) VALUES (?, 'h', 1, '', 0)",
          `filler/${i}.txt`,
        );
      }
    });
    await runInDurableObject(stub, (_instance, state) => state.abort(EXPECTED_CRASH)).catch(
      () => {},
    );
    expect(ok(await ws.list()).total).toBe(MAX_FILES);
    expect(refused(await ws.write("one-more.md", "x", T1))).toMatch(/full \(2000 files\)/);
    expect(ok(await ws.write("keep.md", "v2", T1)).created).toBe(false);
  });
});

describe("workspace checkpoints", () => {
  it("round-trips create, list and restore, and a restore is reversible", async () => {
    const { ws } = fresh();
    ok(await ws.write("a.txt", "a1", T1));
    ok(await ws.write("b.txt", "b1", T1));
    const v1 = ok(await ws.checkpointCreate("v1", T1));
    expect(v1).toMatchObject({ label: "v1", files: 2, automatic: false });
    ok(await ws.write("a.txt", "a2", T1));
    ok(await ws.write("c.txt", "c2", T1));
    const restored = ok(await ws.checkpointRestore(v1.id, T1));
    expect(restored).toMatchObject({ restored: v1.id, files: 2 });
    expect(ok(await ws.read("a.txt")).content).toBe("a1");
    expect(refused(await ws.read("c.txt"))).toMatch(/not found/);
    const list = ok(await ws.checkpointList()).checkpoints;
    expect(list[0]).toMatchObject({
      id: restored.backup,
      label: `before restore of ${v1.id}`,
      automatic: true,
      files: 3,
    });
    ok(await ws.checkpointRestore(restored.backup, T1));
    expect(ok(await ws.read("a.txt")).content).toBe("a2");
    expect(ok(await ws.read("c.txt")).content).toBe("c2");
    const unknown = refused(await ws.checkpointRestore("cp-999", T1));
    expect(unknown).toMatch(/unknown checkpoint "cp-999"; the latest are cp-\d+/);
    expect(unknown).toContain(restored.backup);
    expect(refused(await ws.checkpointCreate("  ", T1))).toMatch(/label/);
  });

  it("prunes the oldest automatic checkpoints past the kept count, never the agent's own", async () => {
    const { owner, ws } = fresh();
    ok(await ws.write("a.txt", "a", T1));
    const stub = env.WORKSPACES.get(env.WORKSPACES.idFromName(workspaceKey(AGENT, owner)));
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      const checkpoints = new Checkpoints(sql, new Manifest(sql), 2);
      const auto = { automatic: true, taskId: "task-1" };
      const before = checkpoints.list().map((c) => c.id);
      const first = checkpoints.create("auto 1", "t1", auto).id;
      const own = checkpoints.create("mine", "t2", { automatic: false }).id;
      const later = [2, 3, 4].map((i) => checkpoints.create(`auto ${i}`, `t${i}`, auto).id);
      const kept = checkpoints.list().map((c) => c.id);
      expect(kept).toEqual([later[2], later[1], own]);
      for (const gone of [...before, first, later[0]]) {
        expect(checkpoints.info(gone as string)).toBeNull();
        const files = sql.exec("SELECT 1 FROM checkpoint_files WHERE checkpoint_id = ?", gone);
        expect(files.toArray()).toEqual([]);
      }
    });
  });

  it("takes a checkpoint before a task's first change and records it", async () => {
    const { ws } = fresh();
    const first = ok(await ws.write("x.md", "v1", { taskId: "task-a" }));
    expect(first.checkpoint).not.toBeNull();
    expect(await ws.taskCheckpoint("task-a")).toBe(first.checkpoint);
    const [taken] = ok(await ws.checkpointList()).checkpoints;
    expect(taken).toMatchObject({ label: "before task task-a", automatic: true, files: 0 });
    expect(ok(await ws.write("y.md", "y", { taskId: "task-a" })).checkpoint).toBeNull();
    expect(await ws.taskCheckpoint("task-never")).toBeNull();
    // Right after a checkpoint, a new task's first change reuses it instead of taking another.
    const manual = ok(await ws.checkpointCreate("manual", T1));
    expect(ok(await ws.write("z.md", "z", { taskId: "task-b" })).checkpoint).toBeNull();
    expect(await ws.taskCheckpoint("task-b")).toBe(manual.id);
    // Rolling back to the task checkpoint undoes the task's changes.
    ok(await ws.checkpointRestore(first.checkpoint as string, T1));
    expect(ok(await ws.list()).total).toBe(0);
  });

  it("checkpoints before overwriting unsaved work, once per file", async () => {
    const { ws } = fresh();
    ok(await ws.write("f.md", "v1", T1));
    const second = ok(await ws.write("f.md", "v2", T1));
    expect(second.checkpoint).not.toBeNull();
    const [guard] = ok(await ws.checkpointList()).checkpoints;
    expect(guard).toMatchObject({ id: second.checkpoint, label: "before write of f.md" });
    expect(ok(await ws.write("f.md", "v3", T1)).checkpoint).toBeNull();
    expect(ok(await ws.edit("f.md", "v3", "v4", T1)).checkpoint).toBeNull();
    ok(await ws.write("g.md", "other", T1));
    const edited = ok(await ws.edit("f.md", "v4", "v5", T1));
    expect(edited.checkpoint).not.toBeNull();
    const cps = ok(await ws.checkpointList()).checkpoints;
    expect(cps[0]).toMatchObject({ id: edited.checkpoint, label: "before edit of f.md" });
    // The checkpoint holds the version about to be lost.
    ok(await ws.checkpointRestore(edited.checkpoint as string, T1));
    expect(ok(await ws.read("f.md")).content).toBe("v4");
    // A file unchanged since the latest checkpoint is overwritten without a new one.
    ok(await ws.checkpointCreate("saved", T1));
    expect(ok(await ws.write("f.md", "v6", T1)).checkpoint).toBeNull();
    expect(ok(await ws.write("f.md", "v6", T1)).checkpoint).toBeNull();
  });
});

describe("workspace checkpoint hygiene", () => {
  it("writes the harness's state files without automatic checkpoints", async () => {
    const { ws } = fresh();
    ok(await ws.write("PROGRESS.json", "{}", { taskId: "h1", harness: true }));
    ok(await ws.write("PROGRESS.json", "{ }", { taskId: "h1", harness: true }));
    expect(ok(await ws.checkpointList()).checkpoints).toEqual([]);
    expect(await ws.taskCheckpoint("h1")).toBeNull();
  });

  it("keeps the newest 50 automatic checkpoints and every one the agent made", async () => {
    const { ws } = fresh();
    ok(await ws.checkpointCreate("mine", T1));
    for (let i = 0; i < 60; i++) {
      ok(await ws.write(`f${i % 2}.md`, `v${i}`, { taskId: `p${i}` }));
    }
    const list = ok(await ws.checkpointList()).checkpoints;
    expect(list.filter((c) => c.automatic)).toHaveLength(50);
    expect(list.filter((c) => !c.automatic).map((c) => c.label)).toEqual(["mine"]);
  });
});

describe("workspace storage", () => {
  it("stores identical contents once, under their sha256", async () => {
    const { owner, ws } = fresh();
    ok(await ws.write("one.txt", "same content", T1));
    ok(await ws.write("two/copy.txt", "same content", T1));
    const prefix = `agents/${AGENT}/users/${owner}/blobs/`;
    const once = await env.FILES.list({ prefix });
    expect(once.objects.map((o) => o.key)).toEqual([
      `${prefix}${await sha256Hex(enc("same content"))}`,
    ]);
    ok(await ws.write("three.txt", "different", T1));
    expect((await env.FILES.list({ prefix })).objects).toHaveLength(2);
    expect(ok(await ws.read("two/copy.txt")).content).toBe("same content");
  });

  it("writes a task's end note in one commit: new blobs stored together, each file its own change", async () => {
    const { owner, ws } = fresh();
    ok(await ws.write("notes.md", "work", T1));
    const end = (at: string) =>
      ws.endNote({
        taskId: "task-2",
        agent: AGENT,
        state: "TASK_STATE_COMPLETED",
        asked: "a",
        answer: "b",
        at,
      });
    const written = ok(await end("2026-11-28T00:00:00.000Z")).written;
    expect(written).toEqual(["HANDOFF.md", "progress_log.md", "agent_state.json"]);
    const seqs = await runInDurableObject(
      env.WORKSPACES.get(env.WORKSPACES.idFromName(workspaceKey(AGENT, owner))),
      (_o, state) => ({
        files: state.storage.sql
          .exec<{ path: string; seq: number }>("SELECT path, seq FROM files ORDER BY seq")
          .toArray(),
        change: state.storage.sql
          .exec<{ value: string }>("SELECT value FROM meta WHERE key = 'change_seq'")
          .one().value,
      }),
    );
    // notes.md was change 1; the three state files changes 2, 3 and 4, the counter at 4.
    expect(seqs.files.map((f) => [f.path, f.seq])).toEqual([
      ["notes.md", 1],
      ["HANDOFF.md", 2],
      ["progress_log.md", 3],
      ["agent_state.json", 4],
    ]);
    expect(seqs.change).toBe("4");
    const blobs = await env.FILES.list({ prefix: `agents/${AGENT}/users/${owner}/blobs/` });
    expect(blobs.objects).toHaveLength(4);
    expect(ok(await ws.read("HANDOFF.md")).content).toContain("# Handoff from task task-2");
    // Asked again (a retry whose answer was lost, by a call with a key of its own): the task's
    // note is written once; no idempotency row was kept for it.
    const log = ok(await ws.read("progress_log.md")).content;
    expect(ok(await end("2026-11-28T00:00:05.000Z")).written).toEqual([]);
    expect(ok(await ws.read("progress_log.md")).content).toBe(log);
    const kept = await runInDurableObject(
      env.WORKSPACES.get(env.WORKSPACES.idFromName(workspaceKey(AGENT, owner))),
      (_o, state) =>
        state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM recent_calls").one().n,
    );
    expect(kept).toBe(1); // notes.md's write alone
    // The same task ending otherwise (its first end rolled back, then run again): written.
    const failed = await ws.endNote({
      taskId: "task-2",
      agent: AGENT,
      state: "TASK_STATE_FAILED",
      asked: "a",
      answer: "b",
      at: "2026-11-28T00:00:09.000Z",
    });
    expect(ok(failed).written).toEqual(["HANDOFF.md", "progress_log.md", "agent_state.json"]);
  });

  it("keeps owners apart", async () => {
    const a = fresh();
    const b = fresh();
    ok(await a.ws.write("secret.md", "a's secret", T1));
    expect(ok(await b.ws.list()).total).toBe(0);
    expect(refused(await b.ws.read("secret.md"))).toMatch(/not found/);
    expect(ok(await b.ws.grep("secret")).matches).toEqual([]);
    const other = workspaceFor(env.WORKSPACES, "ws-other-agent", a.owner);
    expect(ok(await other.list()).total).toBe(0);
  });

  it("refuses a call for another scope than the object serves", async () => {
    const { owner, ws } = fresh();
    ok(await ws.list());
    const stub = env.WORKSPACES.get(env.WORKSPACES.idFromName(workspaceKey(AGENT, owner)));
    const outcome = await stub.list({ agent: AGENT, owner: "someone-else" }).then(
      () => "answered",
      (error: unknown) => String(error),
    );
    expect(outcome).toMatch(/scope mismatch/);
    expect(ok(await ws.list()).total).toBe(0);
  });
});
