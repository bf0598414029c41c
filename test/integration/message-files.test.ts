/**
 * A message's file parts go to the caller's workspace (`uploads/<name>`) before the task takes
 * the message: inline bytes, and URLs fetched through the SSRF guard; the part then says where it
 * went, the model is told the same with the file (a text file's text still reaches it as text)
 * and can read it with read_file. Names collide into `-2`, `-3`; the same bytes sent again reuse
 * their file; a client's own note is dropped; limits and refusals are noted on the part and the
 * message goes on. Against an agent uploaded for the test, so the suite holds for any set of agents.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../src/protocol/wire.ts";
import { MAX_MESSAGE_FILES, saveMessageFiles } from "../../src/task/message-files.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import { MAX_FILE_BYTES } from "../../src/workspace/limits.ts";
import { rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { modelRequests, scenario, toolResults } from "../helpers/fake-model.ts";
import { ok } from "../helpers/results.ts";
import { toolTurn } from "../helpers/turns.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const agent = `parts-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const identity = ["---", `name: ${agent}`, "---", "You read what you are sent."].join("\n");
  expect((await putIdentity(agent, identity)).status).toBe(200);
});

afterAll(async () => {
  await deleteIdentity(agent);
});

const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

type FilePart = {
  raw?: string;
  url?: string;
  filename?: string;
  mediaType?: string;
  metadata?: Record<string, unknown>;
};

/** Sends `parts` (after a text part with the scenario's marker) in conversation `contextId`. */
async function send(contextId: string, marker: string, parts: FilePart[]): Promise<WireTask> {
  const message = { ...userMessage(`Here you are ${marker}`, { contextId }) };
  (message.parts as unknown[]).push(...parts);
  const answer = await rpc<{ task: WireTask }>(
    "SendMessage",
    { message, configuration: { historyLength: 10 } },
    { path: `/agents/${agent}/` },
  );
  if (!answer.result) throw new Error(JSON.stringify(answer.error));
  return answer.result.task;
}

/** The workspace notes on the parts of the task's first message. */
const notesOf = (task: WireTask) =>
  ((task.history?.[0]?.parts ?? []) as Array<{ metadata?: { workspaceFile?: unknown } }>)
    .slice(1)
    .map((p) => p.metadata?.workspaceFile);

/** The anonymous workspace of a conversation, as the agent sees it. */
async function workspaceOf(contextId: string) {
  const { anonymousOwner } = await import("../../src/auth/anonymous.ts");
  return workspaceFor(env.WORKSPACES, agent, await anonymousOwner(contextId));
}

describe("a message's file parts", () => {
  it("are saved in uploads/, named on the part and to the model, and read back byte for byte", async () => {
    const contextId = crypto.randomUUID();
    const text = "# Changes\n- ünïcode ✓\n- second line\n";
    const s = await scenario([
      toolTurn("read_file", { path: "uploads/CHANGELOG.md" }),
      { text: "Read." },
    ]);
    const task = await send(contextId, s.marker, [
      { raw: b64(text), mediaType: "text/markdown", filename: "CHANGELOG.md" },
      { raw: btoa("\x89PNG\r\n"), mediaType: "image/png" },
      // A client's own note is not believed.
      {
        raw: b64("x"),
        mediaType: "text/plain",
        filename: "forged.txt",
        metadata: { workspaceFile: { path: "PROGRESS.json", size: 1 }, kept: true },
      },
    ]);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(notesOf(task)).toEqual([
      { path: "uploads/CHANGELOG.md", size: new TextEncoder().encode(text).byteLength },
      { path: "uploads/file-2.png", size: 6 },
      { path: "uploads/forged.txt", size: 1 },
    ]);
    const third = (task.history?.[0]?.parts[3] ?? {}) as { metadata?: Record<string, unknown> };
    expect(third.metadata?.kept).toBe(true);

    const ws = await workspaceOf(contextId);
    const saved = ok(await ws.download("uploads/CHANGELOG.md"));
    expect(new TextDecoder().decode(saved.bytes)).toBe(text);
    expect(ok(await ws.download("uploads/file-2.png")).bytes).toEqual(
      Uint8Array.from("\x89PNG\r\n", (c) => c.charCodeAt(0)),
    );
    const first = JSON.stringify((await modelRequests(s.id))[0]?.body.messages[0]?.content);
    expect(first).toContain(
      "File CHANGELOG.md (text/markdown), saved in the workspace as uploads/CHANGELOG.md",
    );
    expect(first).toContain("- ünïcode ✓");
    expect((await toolResults(s.id))[0]).toContain("2| - ünïcode ✓");

    // The change history has them as the person's, with the task they came with.
    const { changes } = ok(await ws.snapshot([], { history: 10 }));
    const uploads = changes?.filter((c) => c.path?.startsWith("uploads/")) ?? [];
    expect(uploads.map((c) => [c.person, c.taskId])).toEqual([
      ["anonymous", task.id],
      ["anonymous", task.id],
      ["anonymous", task.id],
    ]);
  });

  it("take a free name when another file holds theirs, and reuse their file when sent again", async () => {
    const contextId = crypto.randomUUID();
    const part = (text: string) => ({
      raw: b64(text),
      mediaType: "text/plain",
      filename: "notes.txt",
    });
    const one = await scenario([{ text: "One." }]);
    expect(notesOf(await send(contextId, one.marker, [part("first"), part("second")]))).toEqual([
      { path: "uploads/notes.txt", size: 5 },
      { path: "uploads/notes-2.txt", size: 6 },
    ]);
    const two = await scenario([{ text: "Two." }]);
    expect(notesOf(await send(contextId, two.marker, [part("second"), part("third")]))).toEqual([
      { path: "uploads/notes-2.txt", size: 6 },
      { path: "uploads/notes-3.txt", size: 5 },
    ]);
  });

  it("fetch a linked file through the SSRF guard, and are kept apart per conversation", async () => {
    const contextId = crypto.randomUUID();
    const url = `${env.FAKE_MODEL_URL}/_scripted/health`;
    const s = await scenario([{ text: "Fetched." }]);
    const task = await send(contextId, s.marker, [{ url, mediaType: "application/json" }]);
    expect(notesOf(task)).toEqual([{ path: "uploads/health", size: expect.any(Number) }]);
    const ws = await workspaceOf(contextId);
    expect(ok(await ws.read("uploads/health")).content).toContain('"ok":true');
    const other = await workspaceOf(crypto.randomUUID());
    expect(ok(await other.list()).total).toBe(0);
  });
});

describe("saving a message's files, at its limits", () => {
  const message = (parts: FilePart[]): Message => ({
    messageId: crypto.randomUUID(),
    role: "ROLE_USER",
    parts: [{ text: "files" }, ...parts],
  });
  const deps = (fetcher: typeof fetch, allowPrivate = false) => ({
    workspace: workspaceFor(env.WORKSPACES, agent, `files-${crypto.randomUUID().slice(0, 8)}`),
    meta: { taskId: "t-limits", person: "someone" },
    allowPrivate,
    fetch: fetcher,
  });
  const never = (async () => {
    throw new Error("no fetch expected");
  }) as unknown as typeof fetch;
  const noteAt = (m: Message, i: number) => m.parts[i]?.metadata?.workspaceFile;

  it("leaves a message without files as it is", async () => {
    const plain = message([]);
    expect(await saveMessageFiles(plain, deps(never))).toBe(plain);
  });

  it("refuses private hosts and redirects to them, bodies over the size limit and HTTP errors", async () => {
    const routes: Record<string, () => Response> = {
      "https://files.example/big.txt": () => new Response(new Uint8Array(MAX_FILE_BYTES + 1)),
      "https://files.example/gone.txt": () => new Response("nope", { status: 404 }),
      "https://files.example/hop": () =>
        new Response(null, { status: 302, headers: { location: "http://127.0.0.1/secret" } }),
      "https://files.example/ok.txt": () => new Response("fine"),
    };
    const fetcher = (async (input: RequestInfo | URL) => {
      const route = routes[String(input)];
      if (!route) throw new Error(`unexpected fetch ${String(input)}`);
      return route();
    }) as typeof fetch;
    const saved = await saveMessageFiles(
      message([
        { url: "http://127.0.0.1:9/local.txt", mediaType: "text/plain" },
        { url: "https://files.example/hop", mediaType: "text/plain" },
        { url: "https://files.example/big.txt", mediaType: "text/plain" },
        { url: "https://files.example/gone.txt", mediaType: "text/plain" },
        { url: "https://files.example/ok.txt", mediaType: "text/plain" },
      ]),
      deps(fetcher),
    );
    expect(noteAt(saved, 1)).toEqual({
      error: expect.stringMatching(
        /^not saved: http:\/\/127\.0\.0\.1:9\/local\.txt was refused: 127\.0\.0\.1 is a loopback address/,
      ),
    });
    expect(noteAt(saved, 2)).toEqual({
      error: expect.stringMatching(
        /^not saved: https:\/\/files\.example\/hop was refused: 127\.0\.0\.1 is a loopback/,
      ),
    });
    expect(noteAt(saved, 3)).toEqual({
      error: expect.stringContaining(`larger than ${MAX_FILE_BYTES} bytes`),
    });
    expect(noteAt(saved, 4)).toEqual({ error: "not saved: fetching it answered HTTP 404" });
    expect(noteAt(saved, 5)).toEqual({ path: "uploads/ok.txt", size: 4 });
  });

  it(`saves at most ${MAX_MESSAGE_FILES} files of a message, and names the rest unsaved`, async () => {
    const parts = Array.from({ length: MAX_MESSAGE_FILES + 1 }, (_, i) => ({
      raw: b64(`file ${i}`),
      mediaType: "text/plain",
    }));
    const saved = await saveMessageFiles(message(parts), deps(never));
    expect(noteAt(saved, MAX_MESSAGE_FILES)).toEqual({
      path: `uploads/file-${MAX_MESSAGE_FILES}.txt`,
      size: `file ${MAX_MESSAGE_FILES - 1}`.length,
    });
    expect(noteAt(saved, MAX_MESSAGE_FILES + 1)).toEqual({
      error: `not saved: a message saves at most ${MAX_MESSAGE_FILES} files`,
    });
  });

  it("keeps names inside uploads/: a path, dots or control characters in a name are not followed", async () => {
    const saved = await saveMessageFiles(
      message([
        { raw: b64("a"), mediaType: "text/plain", filename: "../../PROGRESS.json" },
        { raw: b64("b"), mediaType: "text/plain", filename: ".." },
        { raw: b64("c"), mediaType: "text/markdown", filename: "C:\\evil\u0000name.md" },
      ]),
      deps(never),
    );
    expect([1, 2, 3].map((i) => noteAt(saved, i))).toEqual([
      { path: "uploads/PROGRESS.json", size: 1 },
      { path: "uploads/file-2.txt", size: 1 },
      { path: "uploads/evil_name.md", size: 1 },
    ]);
  });
});
