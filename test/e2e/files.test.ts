/**
 * Files in and out, against `wrangler dev` (issue 42): a file uploaded through the files API is
 * read by the agent byte for byte; a file the agent writes and attaches is downloaded byte for
 * byte (the API, the artifact, the CLI); a file part sent with a message lands in the workspace;
 * another conversation and another user see none of it; `../` and encoded escapes are refused; a
 * state file's upload is refused and the file unchanged; `send --file` and a pipe reach the agent;
 * `files ls|get|put|rm` round trip. Against an agent uploaded for the test (every tool), so the
 * suite holds for any set of agents.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/until.ts";
import { runCli } from "./cli-run.ts";
import { scenario as scriptScenario } from "./client.ts";
import { tempDir } from "./processes.ts";
import {
  removeUploadedAgent,
  type SharedHarness,
  sharedScriptedHarness,
} from "./shared-harness.ts";
import { addUser } from "./users.ts";

let harness: SharedHarness;
/** The session's admin key (from the banner): uploads the agent, and removes it at the end. */
let admin: string | null = null;
let base = "";
let alice = "";
let bob = "";
const agent = `files-${crypto.randomUUID().slice(0, 8)}`;

type Json = Record<string, unknown>;
type Task = {
  id: string;
  contextId: string;
  status: { state: string };
  artifacts?: Array<{ artifactId: string; parts: Array<Json> }>;
  history?: Array<{ parts: Array<Json> }>;
};

const bearer = (token: string | null): Record<string, string> =>
  token ? { Authorization: `Bearer ${token}` } : {};

/** The files route of the test agent; `rest` follows `/files`. */
const filesAt = (rest = "") => `${base}/api/workspaces/${agent}/files${rest}`;

/** A files API call with `token` (none: anonymous). */
const files = (rest: string, token: string | null, init: RequestInit = {}) =>
  fetch(filesAt(rest), { ...init, headers: bearer(token) });

/** Sends `parts` to the test agent as a blocking v1.0 SendMessage; the task. */
async function send(token: string | null, parts: Json[], contextId?: string): Promise<Task> {
  const response = await fetch(`${base}/agents/${agent}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0", ...bearer(token) },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          parts,
          ...(contextId ? { contextId } : {}),
        },
      },
    }),
  });
  const body = (await response.json()) as { result?: { task: Task }; error?: unknown };
  if (!body.result) throw new Error(`SendMessage failed: ${JSON.stringify(body.error)}`);
  return body.result.task;
}

/** A new anonymous conversation with the test agent (uploads go into one that has a task). */
async function conversation(): Promise<string> {
  const contextId = crypto.randomUUID();
  const task = await send(null, [{ text: "Hi [[reply:Hello.]]" }], contextId);
  expect(task.status.state).toBe("TASK_STATE_COMPLETED");
  return contextId;
}

/** Registers a scripted scenario; its marker. */
const scenario = (turns: unknown[]) =>
  scriptScenario(harness.fake.url, `files-${crypto.randomUUID()}`, turns);

/** The requests the scripted model received for the scenario of `marker`. */
async function modelRequests(marker: string): Promise<Array<{ body: { messages: Json[] } }>> {
  const id = /\[\[scenario:(.+)\]\]/.exec(marker)?.[1] ?? "";
  const response = await fetch(`${harness.fake.url}/_scripted/requests?scenario=${id}`);
  return ((await response.json()) as { requests: Array<{ body: { messages: Json[] } }> }).requests;
}

/** The tool results in the last request of a scenario. */
async function toolResults(marker: string): Promise<string[]> {
  const last = (await modelRequests(marker)).at(-1);
  return (last?.body.messages ?? []).flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Json[]).filter((b) => b.type === "tool_result").map((b) => String(b.content))
      : [],
  );
}

const toolTurn = (name: string, input: Json) => ({ toolUses: [{ name, input }] });

/** A GET with its path sent as written (no URL normalisation of `..` or escapes). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: "GET" }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  harness = await sharedScriptedHarness();
  base = harness.server.url;
  alice = (await addUser(harness.server, `alice-${agent}`)) as string;
  bob = (await addUser(harness.server, `bob-${agent}`)) as string;
  admin = /Authorization: Bearer (dev-admin-\S+)/.exec(harness.server.output())?.[1] ?? null;
  const uploaded = await fetch(`${base}/api/admin/agents/${agent}/identity`, {
    method: "PUT",
    headers: { ...bearer(admin), "content-type": "text/markdown" },
    body: ["---", `name: ${agent}`, "---", "You work with files."].join("\n"),
  });
  expect(uploaded.status).toBe(200);
  // The new agent is served once the Worker has read the upload (at most 2 s).
  await until(
    async () => (await fetch(`${base}/agents/${agent}/.well-known/agent-card.json`)).status,
    (status) => status === 200,
  );
});

afterAll(async () => {
  // The shared server serves the next file as it found it: without this file's agent.
  if (admin !== null) await removeUploadedAgent(harness.server, agent, admin);
  await harness?.release();
});

describe("files in and out", () => {
  it("an uploaded file is read by the agent byte for byte; others see none of it", async () => {
    const text = "# Changelog\n\n## 1.2.0\n- files in and out ✓ (ünïcode)\n- tabs\there\n";
    const put = await files("/CHANGELOG.md", alice, { method: "PUT", body: text });
    expect(put.status).toBe(201);
    const marker = await scenario([
      toolTurn("read_file", { path: "CHANGELOG.md" }),
      { text: "Read." },
    ]);
    const task = await send(alice, [{ text: `Read the changelog ${marker}` }]);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const [read] = await toolResults(marker);
    const lines = text.slice(0, -1).split("\n");
    const numbered = lines.map((line, i) => `${String(i + 1).padStart(5)}| ${line}`).join("\n");
    expect(read).toBe(`CHANGELOG.md lines 1-${lines.length} of ${lines.length}\n${numbered}`);
    // Bob, and an anonymous conversation, have their own (empty) workspaces.
    expect(await (await files("", bob)).json()).toEqual({ files: [] });
    expect((await files("/CHANGELOG.md", bob)).status).toBe(404);
    const anonymous = await files(`?contextId=${crypto.randomUUID()}`, null);
    expect(await anonymous.json()).toEqual({ files: [] });
  });

  it("a file the agent writes and attaches is downloaded byte for byte", async () => {
    const notes = "# Release notes\r\n\r\n- ✓ files in and out\r\n";
    const marker = await scenario([
      toolTurn("write_file", { path: "RELEASE_NOTES.md", content: notes }),
      toolTurn("attach_file", { path: "RELEASE_NOTES.md" }),
      { text: "Here are the notes." },
    ]);
    const task = await send(alice, [{ text: `Write the notes ${marker}` }]);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const downloaded = await files("/RELEASE_NOTES.md", alice);
    expect(downloaded.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(Buffer.from(await downloaded.arrayBuffer()).toString("utf8")).toBe(notes);
    const artifact = task.artifacts?.find((a) => a.artifactId === "file:RELEASE_NOTES.md");
    expect(Buffer.from(String(artifact?.parts[0]?.raw), "base64").toString("utf8")).toBe(notes);
    const cli = await runCli(base, ["files", "get", agent, "RELEASE_NOTES.md", "--token", alice]);
    expect(cli.code).toBe(0);
    expect(cli.out).toBe(notes);
  });

  it("a file part sent with a message is in the workspace, of that conversation only", async () => {
    const contextId = crypto.randomUUID();
    const data = "name,qty\nwidget,3\n";
    const marker = await scenario([{ text: "Got it." }]);
    const task = await send(
      null,
      [
        { text: `Here is the data ${marker}` },
        { raw: Buffer.from(data).toString("base64"), mediaType: "text/csv", filename: "data.csv" },
      ],
      contextId,
    );
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const listed = (await (await files(`?contextId=${contextId}`, null)).json()) as {
      files: Array<{ path: string; size: number }>;
    };
    const uploads = listed.files.filter((f) => f.path.startsWith("uploads/"));
    expect(uploads.map((f) => [f.path, f.size])).toEqual([["uploads/data.csv", data.length]]);
    const got = await files(`/uploads/data.csv?contextId=${contextId}`, null);
    expect(await got.text()).toBe(data);
    const other = await files(`?contextId=${crypto.randomUUID()}`, null);
    expect(await other.json()).toEqual({ files: [] });
    expect(await (await files("", bob)).json()).toEqual({ files: [] });
  });

  it("refuses ../ and encoded escapes, and changes nothing", async () => {
    const contextId = await conversation();
    expect(
      (await files(`/kept.md?contextId=${contextId}`, null, { method: "PUT", body: "kept" }))
        .status,
    ).toBe(201);
    const listing = async () =>
      (
        (await (await files(`?contextId=${contextId}`, null)).json()) as {
          files: Array<{ path: string; size: number; modified: string }>;
        }
      ).files;
    const before = await listing();
    expect(before.map((f) => f.path)).toContain("kept.md");
    const prefix = `/api/workspaces/${agent}/files`;
    for (const path of [
      "..%2f..%2fsecret",
      "%2e%2e%2fsecret",
      "..%5csecret",
      "%2e%2e%5c%2e%2e%5csecret",
      "a%00b",
    ]) {
      const answer = await rawGet(`${prefix}/${path}?contextId=${contextId}`);
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(answer.body).toContain("path");
    }
    // A raw ../ never reaches a file: normalised away by the URL, or refused.
    for (const path of ["../../CHANGELOG.md", "../files/../../x"]) {
      const answer = await rawGet(`${prefix}/${path}?contextId=${contextId}`);
      expect(answer.status).toBeGreaterThanOrEqual(400);
    }
    expect(await listing()).toEqual(before);
  });

  it("refuses a state file's upload, and the file stays as it was", async () => {
    const marker = await scenario([
      toolTurn("progress_update", { remaining: ["ship the notes"] }),
      { text: "Recorded." },
    ]);
    expect((await send(alice, [{ text: `Record progress ${marker}` }])).status.state).toBe(
      "TASK_STATE_COMPLETED",
    );
    const before = await (await files("/PROGRESS.json", alice)).text();
    expect(before).toContain("ship the notes");
    const refused = await files("/PROGRESS.json", alice, { method: "PUT", body: "{}" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      "kept by progress_update",
    );
    expect(await (await files("/PROGRESS.json", alice)).text()).toBe(before);
  });
});

describe("the CLI's files", () => {
  it("send --file and a pipe reach the agent", async () => {
    const dir = tempDir("a2a-files-");
    const local = join(dir, "brief.md");
    writeFileSync(local, "# Brief\nShip it on Friday.\n");
    const contextId = crypto.randomUUID();
    const withFile = await scenario([
      toolTurn("read_file", { path: "uploads/brief.md" }),
      { text: "Read." },
    ]);
    const sent = await runCli(base, [
      "send",
      agent,
      `Read the brief ${withFile}`,
      "--file",
      local,
      "--context",
      contextId,
    ]);
    expect(sent.code).toBe(0);
    expect((await toolResults(withFile))[0]).toContain("2| Ship it on Friday.");

    // A message longer than any argument list, through a pipe.
    const piped = await scenario([{ text: "Got the long one." }]);
    const long = `${"word ".repeat(30_000)}${piped}`; // 150 kB: over one argument's 128 KiB
    // (Each send in a conversation of its own: the scripted model follows a conversation's first marker.)
    const fromPipe = await runCli(base, ["send", agent, "--context", crypto.randomUUID()], long);
    expect(fromPipe.code).toBe(0);
    expect(fromPipe.out).toBe("Got the long one.\n");
    const first = JSON.stringify((await modelRequests(piped))[0]?.body.messages.at(-1));
    expect(first).toContain("word word word");
    const dash = await scenario([{ text: "Dash." }]);
    const fromDash = await runCli(base, ["send", agent, "-"], `Hi ${dash}`);
    expect(fromDash.out).toBe("Dash.\n");
  });

  it("files ls, get, put and rm round trip, with the conversation or the token", async () => {
    const dir = tempDir("a2a-files-");
    const local = join(dir, "photo.bin");
    const bytes = Buffer.from([0, 255, 1, 254, 10, 13, 0x89]);
    writeFileSync(local, bytes);
    const contextId = await conversation();
    const cli = (args: string[], input?: string) =>
      runCli(base, ["files", ...args, "--context", contextId], input);
    const put = await cli(["put", agent, local, "in/photo.bin"]);
    expect(put.code).toBe(0);
    expect(put.out).toBe("created in/photo.bin (7 bytes)\n");
    expect((await cli(["put", agent, "-", "notes.txt"], "from stdin\n")).code).toBe(0);
    const ls = await cli(["ls", agent]);
    // (Beside the state files the conversation's first task left.)
    expect(ls.out).toMatch(
      /^in\/photo\.bin {2}7 bytes {2}\S+ \S+ {2}application\/octet-stream\nnotes\.txt {2}11 bytes/m,
    );
    const saved = join(dir, "back.bin");
    expect((await cli(["get", agent, "in/photo.bin", saved])).code).toBe(0);
    expect(readFileSync(saved)).toEqual(bytes);
    expect((await cli(["rm", agent, "notes.txt"])).out).toBe("deleted notes.txt\n");
    const gone = await cli(["get", agent, "notes.txt"]);
    expect(gone.code).toBe(1);
    expect(gone.err).toMatch(/^a2a: files get: notes\.txt not found \(HTTP 404\)\n$/);
    const state = await cli(["put", agent, local, "PROGRESS.json"]);
    expect(state.code).toBe(1);
    expect(state.err).toContain("PROGRESS.json is a state file kept by progress_update");
    // Without a token or a conversation, the CLI says what to add.
    const bare = await runCli(base, ["files", "ls", agent]);
    expect(bare.code).toBe(1);
    expect(bare.err).toContain("--context <id>");
  });
});
