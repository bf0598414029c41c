/**
 * The state route (`GET /api/workspaces/<agent>/state`): the state of long work in the caller's
 * workspace, read-only, for the console's State panel: every state file's text (PROGRESS.json,
 * feature_status.json, HANDOFF.md...), the checkpoints and the change history, newest first; for
 * the caller's own workspace only (another user, another anonymous conversation see none of it).
 * Against an agent uploaded for the test (every tool), so the suite holds for any set of agents.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userMessage, type WireTask } from "../helpers/a2a.ts";
import { callWorker, newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { toolTurn } from "../helpers/turns.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const agent = `state-${crypto.randomUUID().slice(0, 8)}`;
const openEnv = env as Env;

interface State {
  files: Array<{ name: string; keptBy: string; text: string | null }>;
  checkpoints: Array<{ id: string; label: string; automatic: boolean }>;
  changes: Array<{ op: string; path: string | null; person: string | null; line: string }>;
}

beforeAll(async () => {
  const identity = ["---", `name: ${agent}`, "---", "You keep notes."].join("\n");
  expect((await putIdentity(agent, identity)).status).toBe(200);
});

afterAll(async () => {
  await deleteIdentity(agent);
});

/** The state route as `token` (anonymous when null), with `query`. */
async function stateOf(token: string | null, query = ""): Promise<Response> {
  return callWorker(
    `/api/workspaces/${agent}/state${query}`,
    { headers: token ? { Authorization: `Bearer ${token}` } : {} },
    openEnv,
  );
}

/** Runs one task of the test agent as `token` that writes a note and records its progress. */
async function work(token: string | null, contextId?: string): Promise<WireTask> {
  const s = await scenario([
    toolTurn("write_file", { path: "notes.md", content: "first" }),
    toolTurn("write_file", { path: "notes.md", content: "second" }),
    toolTurn("progress_update", { accomplished: ["Wrote the notes"], remaining: ["Review"] }),
    { text: "Noted." },
  ]);
  const sent = await rpcAs<{ task: WireTask }>(
    token,
    "SendMessage",
    { message: { ...userMessage(`Keep notes ${s.marker}`), ...(contextId ? { contextId } : {}) } },
    `/agents/${agent}/`,
    openEnv,
  );
  const task = sent.body.result?.task as WireTask;
  expect(task.status.state).toBe("TASK_STATE_COMPLETED");
  return task;
}

describe("the state route", () => {
  it("shows a user's state files, checkpoints and change history, newest first", async () => {
    const user = await newUser();
    await work(user.token);
    const response = await stateOf(user.token);
    expect(response.status).toBe(200);
    const state = (await response.json()) as State;
    const file = (name: string) => state.files.find((f) => f.name === name);
    expect(state.files.slice(0, 3).map((f) => [f.name, f.keptBy])).toEqual([
      ["PROGRESS.json", "progress_update"],
      ["feature_status.json", "feature_update"],
      ["HANDOFF.md", "the harness"],
    ]);
    expect(JSON.parse(file("PROGRESS.json")?.text ?? "{}")).toMatchObject({
      accomplished: ["Wrote the notes"],
      remaining: ["Review"],
    });
    expect(file("feature_status.json")?.text).toBeNull();
    // The end note of the task, written once it ended.
    expect(file("HANDOFF.md")?.text).toContain("Review");
    expect(state.checkpoints.length).toBeGreaterThan(0);
    expect(state.checkpoints.every((c) => c.automatic)).toBe(true);
    const writes = state.changes.filter((c) => c.path === "notes.md");
    expect(writes.map((c) => c.op)).toEqual(["write", "create"]);
    expect(writes.every((c) => c.person === null)).toBe(true);
  });

  it("is the caller's own: another user and another conversation see none of it", async () => {
    const [owner, other] = [await newUser(), await newUser()];
    await work(owner.token);
    const theirs = (await (await stateOf(other.token)).json()) as State;
    expect(theirs.files.every((f) => f.text === null)).toBe(true);
    expect(theirs.checkpoints).toEqual([]);
    expect(theirs.changes).toEqual([]);

    // An anonymous caller: its conversation's workspace, named by its contextId.
    const task = await work(null);
    const mine = (await (await stateOf(null, `?contextId=${task.contextId}`)).json()) as State;
    expect(mine.changes.some((c) => c.path === "notes.md")).toBe(true);
    const elsewhere = (await (
      await stateOf(null, `?contextId=${crypto.randomUUID()}`)
    ).json()) as State;
    expect(elsewhere.changes).toEqual([]);
    const unnamed = await stateOf(null);
    expect(unnamed.status).toBe(400);
  });

  it("changes nothing: it answers GET only", async () => {
    const user = await newUser();
    for (const method of ["PUT", "POST", "DELETE"]) {
      const response = await callWorker(
        `/api/workspaces/${agent}/state`,
        {
          method,
          headers: { Authorization: `Bearer ${user.token}`, "content-type": "application/json" },
          body: "{}",
        },
        openEnv,
      );
      expect(response.status, method).toBe(404);
    }
  });
});
