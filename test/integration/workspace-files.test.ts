/**
 * The files API (`/api/workspaces/<agent>/files`): the caller's workspace of an agent as people
 * reach it, under the workspace's own rules: the path rules against climbing out (`../`,
 * percent-encoded escapes, backslashes, absolute paths, NUL), the size limit, the state guard, the
 * automatic checkpoint before an overwrite or deletion, the change history marking a person's
 * change, and whose workspace each caller reaches (a user's, an anonymous conversation's, any
 * owner's for an admin). Against an agent uploaded for the test (every tool), so the suite holds
 * for any set of agents.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceFor } from "../../src/workspace/client.ts";
import { MAX_FILE_BYTES } from "../../src/workspace/limits.ts";
import { userMessage, type WireTask } from "../helpers/a2a.ts";
import { callWorker, newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario, toolResults } from "../helpers/fake-model.ts";
import { laterSession } from "../helpers/long-work-script.ts";
import { ok } from "../helpers/results.ts";
import { toolTurn } from "../helpers/turns.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const agent = `files-${crypto.randomUUID().slice(0, 8)}`;
const openEnv = env as Env;

beforeAll(async () => {
  const identity = ["---", `name: ${agent}`, "---", "You keep files."].join("\n");
  expect((await putIdentity(agent, identity)).status).toBe(200);
});

afterAll(async () => {
  await deleteIdentity(agent);
});

/** A request to the files route of the test agent (`rest`: what follows `/files`). */
function files(
  rest: string,
  init: RequestInit & { token?: string | null } = {},
  bindings: Env = openEnv,
): Promise<Response> {
  const { token, ...request } = init;
  const headers = new Headers(request.headers);
  if (token) headers.set("Authorization", `Bearer ${token}`);
  return callWorker(`/api/workspaces/${agent}/files${rest}`, { ...request, headers }, bindings);
}

const put = (rest: string, body: BodyInit, token?: string | null, headers: HeadersInit = {}) =>
  files(rest, { method: "PUT", body, headers, ...(token ? { token } : {}) });

/** A new anonymous conversation with the test agent, its first message answered: its contextId. */
async function conversation(bindings: Env = openEnv, metadata?: Record<string, string>) {
  const contextId = crypto.randomUUID();
  const s = await scenario([{ text: "Hello." }]);
  const message = {
    ...userMessage(`Hi ${s.marker}`, { contextId }),
    ...(metadata ? { metadata } : {}),
  };
  const sent = await rpcAs<{ task: WireTask }>(
    null,
    "SendMessage",
    { message },
    `/agents/${agent}/`,
    bindings,
  );
  expect(sent.body.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
  return contextId;
}

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: number; message: string } }).error;

describe("a user's files through the API", () => {
  it("keeps the bytes as sent: uploaded, listed, downloaded byte for byte, replaced, deleted", async () => {
    const user = await newUser();
    const text = "\uFEFF# Notes\r\nümlaut ✓ 🚀\r\nlast line without a newline";
    const binary = Uint8Array.from([0, 255, 1, 254, 0x89, 0x50, 0x4e, 0x47, 10, 13]);
    const created = await put("/notes/today.md", text, user.token);
    expect(created.status).toBe(201);
    const entry = (await created.json()) as Record<string, unknown>;
    expect(entry).toMatchObject({
      path: "notes/today.md",
      size: new TextEncoder().encode(text).byteLength,
      mediaType: "text/markdown; charset=utf-8",
      checkpoint: null,
    });
    expect(typeof entry.modified).toBe("string");
    expect((await put("/image.png", binary, user.token)).status).toBe(201);

    const listed = await files("", { token: user.token });
    expect(listed.status).toBe(200);
    const { files: all } = (await listed.json()) as { files: Array<Record<string, unknown>> };
    expect(all.map((f) => [f.path, f.mediaType])).toEqual([
      ["image.png", "image/png"],
      ["notes/today.md", "text/markdown; charset=utf-8"],
    ]);
    const under = await files("?prefix=notes/", { token: user.token });
    expect(((await under.json()) as { files: unknown[] }).files).toHaveLength(1);

    const got = await files("/notes/today.md", { token: user.token });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(got.headers.get("content-disposition")).toContain('filename="today.md"');
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(new TextEncoder().encode(text));
    const image = await files("/image.png", { token: user.token });
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(binary);
    const etag = image.headers.get("etag") ?? "";
    const again = await files("/image.png", {
      token: user.token,
      headers: { "If-None-Match": etag },
    });
    expect(again.status).toBe(304);

    // A replacement is a 200 and takes a checkpoint first (the version it replaces was in none).
    const replaced = await put("/notes/today.md", "v2\n", user.token);
    expect(replaced.status).toBe(200);
    const { checkpoint } = (await replaced.json()) as { checkpoint: string | null };
    expect(checkpoint).toMatch(/^cp-\d+$/);
    const ws = workspaceFor(env.WORKSPACES, agent, user.id);
    expect(ok(await ws.readAt(checkpoint as string, "notes/today.md")).text).toBe(text);

    expect((await files("/notes/today.md", { method: "DELETE", token: user.token })).status).toBe(
      204,
    );
    expect((await files("/notes/today.md", { token: user.token })).status).toBe(404);
    expect((await files("/notes/today.md", { method: "DELETE", token: user.token })).status).toBe(
      404,
    );

    // Every change is in the change history as this person's, with no task.
    const { changes } = ok(await ws.snapshot([], { history: 10 }));
    expect(changes?.map((c) => [c.op, c.path, c.person, c.taskId])).toEqual([
      ["delete", "notes/today.md", user.id, ""],
      ["write", "notes/today.md", user.id, ""],
      ["create", "image.png", user.id, ""],
      ["create", "notes/today.md", user.id, ""],
    ]);
  });

  it("hands the agent the file it was given, and says when a file is not text", async () => {
    const user = await newUser();
    const text = "line one\nline two: ünïcode ✓\n";
    expect((await put("/CHANGELOG.md", text, user.token)).status).toBe(201);
    expect((await put("/blob.bin", Uint8Array.from([0xff, 0xfe, 0x00]), user.token)).status).toBe(
      201,
    );
    const s = await scenario([
      toolTurn("read_file", { path: "CHANGELOG.md" }),
      toolTurn("read_file", { path: "blob.bin" }),
      { text: "Read." },
    ]);
    const sent = await rpcAs<{ task: WireTask }>(
      user.token,
      "SendMessage",
      { message: userMessage(`Read my changelog ${s.marker}`) },
      `/agents/${agent}/`,
    );
    expect(sent.body.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    const [read, notText] = await toolResults(s.id);
    expect(read).toBe("CHANGELOG.md lines 1-2 of 2\n    1| line one\n    2| line two: ünïcode ✓");
    expect(notText).toMatch(
      /^ERROR blob\.bin is not a text file \(3 bytes of application\/octet-stream\)/,
    );
  });
});

describe("the files API's path rules", () => {
  it("refuses every way out of the workspace with a 400, and changes nothing", async () => {
    const user = await newUser();
    for (const rest of [
      "/..%2fsecret.md",
      "/%2e%2e%2fsecret.md",
      "/notes/..%2F..%2Fsecret.md",
      "/%2e%2e%5csecret.md",
      "/a%5Cb.md",
      "//etc/passwd",
      "/%2Fetc%2Fpasswd",
      "/notes%00.md",
      "/%252e%252e%252fsecret.md",
      "/bad%e0escape.md",
    ]) {
      for (const method of ["PUT", "GET", "DELETE"]) {
        const response = await files(rest, {
          method,
          token: user.token,
          ...(method === "PUT" ? { body: "x" } : {}),
        });
        expect({ rest, method, status: response.status }).toEqual({ rest, method, status: 400 });
        expect((await errorOf(response)).message).toMatch(/path/);
      }
    }
    const { files: left } = (await (await files("", { token: user.token })).json()) as {
      files: unknown[];
    };
    expect(left).toEqual([]);
  });

  it("refuses a state file's upload or deletion with a 403 naming its keeper, the file unchanged", async () => {
    const user = await newUser();
    const ws = workspaceFor(env.WORKSPACES, agent, user.id);
    ok(await ws.write("PROGRESS.json", '{"remaining":["kept"]}', { taskId: "t", harness: true }));
    for (const path of ["PROGRESS.json", "./PROGRESS.json"]) {
      const refused = await put(`/${path}`, "{}", user.token);
      expect(refused.status).toBe(403);
      expect((await errorOf(refused)).message).toContain(
        "PROGRESS.json is a state file kept by progress_update",
      );
    }
    const deleted = await files("/HANDOFF.md", { method: "DELETE", token: user.token });
    expect(deleted.status).toBe(403);
    expect((await errorOf(deleted)).message).toContain("the harness at the end of each task");
    expect(ok(await ws.read("PROGRESS.json")).content).toBe('{"remaining":["kept"]}');
    const listed = (await (await files("", { token: user.token })).json()) as {
      files: Array<{ path: string; keptBy?: string }>;
    };
    expect(listed.files).toEqual([
      expect.objectContaining({ path: "PROGRESS.json", keptBy: "progress_update" }),
    ]);
  });

  it("refuses a body over the file size limit (413) and a form instead of bytes (415)", async () => {
    const user = await newUser();
    const big = new Uint8Array(MAX_FILE_BYTES + 1).fill(97);
    const tooBig = await put("/big.txt", big, user.token);
    expect(tooBig.status).toBe(413);
    expect((await errorOf(tooBig)).message).toContain(`${MAX_FILE_BYTES} bytes`);
    const form = new FormData();
    form.set("file", "hello");
    const asForm = await files("/form.txt", { method: "PUT", body: form, token: user.token });
    expect(asForm.status).toBe(415);
    expect((await files("/big.txt", { token: user.token })).status).toBe(404);
    // Exactly at the limit is fine.
    expect(
      (await put("/max.txt", new Uint8Array(MAX_FILE_BYTES).fill(97), user.token)).status,
    ).toBe(201);
  });

  it("counts each upload as a message against the caller's rate; reading is not counted", async () => {
    const user = await newUser();
    const limited = { ...env, RATE_MESSAGES_PER_MINUTE: "2" } as Env;
    const upload = (name: string) =>
      files(`/${name}`, { method: "PUT", body: name, token: user.token }, limited);
    const statuses = [];
    for (const name of ["a.md", "b.md", "c.md"]) statuses.push((await upload(name)).status);
    expect(statuses).toEqual([201, 201, 429]);
    expect((await files("/a.md", { token: user.token }, limited)).status).toBe(200);
  });

  it("answers an unknown agent with a 404 naming the agents", async () => {
    const user = await newUser();
    const response = await callWorker("/api/workspaces/no-such-agent/files", {
      headers: { Authorization: `Bearer ${user.token}` },
    });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toContain("Unknown agent 'no-such-agent'");
  });
});

describe("whose files each caller reaches", () => {
  it("keeps users, conversations and anonymous callers apart; an admin names any owner", async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    const admin = await newUser("admin");
    expect((await put("/alice.md", "alice's", alice.token)).status).toBe(201);
    const bobs = (await (await files("", { token: bob.token })).json()) as { files: unknown[] };
    expect(bobs.files).toEqual([]);
    expect((await files("/alice.md", { token: bob.token })).status).toBe(404);
    // A user may not name another owner.
    const named = await files(`?owner=${alice.id}`, { token: bob.token });
    expect(named.status).toBe(403);
    // An admin may, and reads the same bytes.
    const read = await files(`/alice.md?owner=${alice.id}`, { token: admin.token });
    expect(await read.text()).toBe("alice's");

    // Anonymous callers: one workspace per conversation, named by its contextId.
    const [one, two] = [await conversation(), crypto.randomUUID()];
    expect((await files("")).status).toBe(400);
    expect((await put(`/anon.md?contextId=${one}`, "one's")).status).toBe(201);
    const other = (await (await files(`?contextId=${two}`)).json()) as { files: unknown[] };
    expect(other.files).toEqual([]);
    expect(await (await files(`/anon.md?contextId=${one}`)).text()).toBe("one's");
    // A user's own workspace is not the conversation's, whatever contextId it names.
    const users = (await (await files(`?contextId=${one}`, { token: alice.token })).json()) as {
      files: Array<{ path: string }>;
    };
    expect(users.files.map((f) => f.path)).toEqual(["alice.md"]);
  });

  it("takes an anonymous upload only into a conversation that has a task, which retention erases", async () => {
    const contextId = crypto.randomUUID();
    const refused = await put(`/early.md?contextId=${contextId}`, "too early");
    expect(refused.status).toBe(404);
    expect((await errorOf(refused)).message).toContain("send it a message first");
    const listed = (await (await files(`?contextId=${contextId}`)).json()) as { files: unknown[] };
    expect(listed.files).toEqual([]);
  });

  it("asks for consent to an upload as to a message, where the deployment requires it", async () => {
    const asking = { ...env, REQUIRE_CONSENT: "true", PRIVACY_POLICY_VERSION: "7" } as Env;
    const contextId = await conversation(asking, { privacyConsent: "7" });
    const path = `/consented.md?contextId=${contextId}`;
    const without = await files(path, { method: "PUT", body: "x" }, asking);
    expect(without.status).toBe(403);
    expect((await errorOf(without)).message).toContain("?privacyConsent=7");
    const wrong = await files(`${path}&privacyConsent=6`, { method: "PUT", body: "x" }, asking);
    expect(wrong.status).toBe(403);
    const given = await files(`${path}&privacyConsent=7`, { method: "PUT", body: "x" }, asking);
    expect(given.status).toBe(201);
    const user = await newUser();
    const unasked = await files(
      "/mine.md",
      { method: "PUT", body: "x", token: user.token },
      asking,
    );
    expect(unasked.status).toBe(403);
    expect((await errorOf(unasked)).message).toContain("POST /api/privacy/consent");
  });

  it("asks for credentials where the deployment is closed", async () => {
    const closed = { ...env, ALLOW_ANONYMOUS: "false" } as Env;
    const response = await files(`?contextId=${crypto.randomUUID()}`, {}, closed);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("hands the file to the agent of the conversation that uploaded it, and to no other", async () => {
    const contextId = await conversation();
    expect((await put(`/brief.md?contextId=${contextId}`, "the brief\n")).status).toBe(201);
    const s = await scenario(
      laterSession(1, [toolTurn("read_file", { path: "brief.md" }), { text: "Done." }]),
    );
    const sent = await rpcAs<{ task: WireTask }>(
      null,
      "SendMessage",
      { message: userMessage(`Read the brief ${s.marker}`, { contextId }) },
      `/agents/${agent}/`,
      openEnv,
    );
    expect(sent.body.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect((await toolResults(s.id))[0]).toContain("1| the brief");
    const elsewhere = await scenario([
      toolTurn("read_file", { path: "brief.md" }),
      { text: "No." },
    ]);
    await rpcAs(
      null,
      "SendMessage",
      { message: userMessage(`Read it ${elsewhere.marker}`, { contextId: crypto.randomUUID() }) },
      `/agents/${agent}/`,
      openEnv,
    );
    expect((await toolResults(elsewhere.id))[0]).toMatch(/^ERROR brief\.md not found/);
  });
});

describe("files the agent attaches as results", () => {
  /** The file parts of the task's `file:` artifacts, by artifact id. */
  const attachedParts = (task: WireTask) =>
    Object.fromEntries(
      (task.artifacts ?? [])
        .filter((a) => a.artifactId.startsWith("file:"))
        .map((a) => [
          a.artifactId,
          a.parts[0] as { raw?: string; url?: string; filename?: string; mediaType?: string },
        ]),
    );

  it("reach the client as artifacts: small ones inline, large ones as a link its credentials open", async () => {
    const user = await newUser();
    const small = "# Release notes\n- files in and out ✓\n";
    // 70,000 bytes: over the 64 KiB sent inline (put there by the person: a model writing it would
    // pass the suite's small context budget)
    const large = `${"x".repeat(99)}\n`.repeat(700);
    expect((await put("/out/data.txt", large, user.token)).status).toBe(201);
    const s = await scenario([
      toolTurn("write_file", { path: "RELEASE_NOTES.md", content: small }),
      toolTurn("attach_file", { path: "RELEASE_NOTES.md", description: "The notes" }),
      toolTurn("attach_file", { path: "out/data.txt" }),
      { text: "Attached." },
    ]);
    const sent = await rpcAs<{ task: WireTask }>(
      user.token,
      "SendMessage",
      { message: userMessage(`Write the notes ${s.marker}`) },
      `/agents/${agent}/`,
    );
    const task = sent.body.result?.task as WireTask;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.metadata?.files).toBe(`http://harness.test/api/workspaces/${agent}/files`);
    const parts = attachedParts(task);
    expect(parts["file:RELEASE_NOTES.md"]).toEqual({
      raw: btoa(String.fromCharCode(...new TextEncoder().encode(small))),
      filename: "RELEASE_NOTES.md",
      mediaType: "text/markdown; charset=utf-8",
    });
    const link = parts["file:out/data.txt"]?.url ?? "";
    expect(link).toBe(`http://harness.test/api/workspaces/${agent}/files/out/data.txt`);
    const { pathname, search } = new URL(link);
    const got = await callWorker(`${pathname}${search}`, {
      headers: { Authorization: `Bearer ${user.token}` },
    });
    expect(await got.text()).toBe(large);
    // Another user's credentials open their own workspace, where it is not.
    const other = await newUser();
    const theirs = await callWorker(`${pathname}${search}`, {
      headers: { Authorization: `Bearer ${other.token}` },
    });
    expect(theirs.status).toBe(404);
  });

  it("link an anonymous caller's file to its conversation", async () => {
    const contextId = await conversation();
    const large = "y".repeat(70_000);
    expect((await put(`/big.txt?contextId=${contextId}`, large)).status).toBe(201);
    const s = await scenario(
      laterSession(1, [toolTurn("attach_file", { path: "big.txt" }), { text: "Attached." }]),
    );
    const sent = await rpcAs<{ task: WireTask }>(
      null,
      "SendMessage",
      { message: userMessage(`Write ${s.marker}`, { contextId }) },
      `/agents/${agent}/`,
      openEnv,
    );
    const task = sent.body.result?.task as WireTask;
    const link = attachedParts(task)["file:big.txt"]?.url ?? "";
    expect(link).toBe(
      `http://harness.test/api/workspaces/${agent}/files/big.txt?contextId=${contextId}`,
    );
    const { pathname, search } = new URL(link);
    expect(await (await callWorker(`${pathname}${search}`, {}, openEnv)).text()).toBe(large);
  });
});
