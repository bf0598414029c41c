/**
 * Operating the service: usage and budgets through the API, the admin user API and shared memory,
 * sessions (list, read, delete), privacy export and erasure (nothing left behind), retention (a
 * task erases itself from its alarm; the cron sweeps the index), and CORS.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { conversationScratchId } from "../../src/task/store/lineage.ts";
import type { TaskObject } from "../../src/task/task-object.ts";
import { RETENTION_JOB } from "../../src/task/task-parts.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import { userMessage } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser, rpcAs } from "../helpers/as-user.ts";
import { modelRequests, savingTurns, scenario } from "../helpers/fake-model.ts";
import { sweepAll } from "../helpers/sweep.ts";
import { until } from "../helpers/until.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

type Task = { id: string; contextId: string; status: { state: string } };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function api(token: string, path: string, init: RequestInit = {}) {
  const response = await callWorker(path, {
    ...init,
    headers: { ...bearer(token), "content-type": "application/json", ...(init.headers ?? {}) },
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
  };
}

/** A user, another user and an admin: who may and who may not see the user's data. */
async function userOtherAdmin() {
  return { user: await newUser(), other: await newUser(), admin: await newUser("admin") };
}

/** The system prompt (as JSON) of a task `token`'s user starts on the agent at `path`. */
async function systemPromptAs(token: string, path: string): Promise<string> {
  const s = await scenario([{ text: "done" }]);
  await rpcAs(token, "SendMessage", { message: userMessage(`hi ${s.marker}`) }, path);
  return JSON.stringify((await modelRequests(s.id))[0]?.body.system);
}

async function sendAs(token: string, text: string, extra: Record<string, unknown> = {}) {
  const sent = await rpcAs<{ task: Task }>(token, "SendMessage", {
    message: userMessage(text, extra),
  });
  return sent.body.result?.task as Task;
}

describe("usage and the admin API", () => {
  it("reports the caller's usage with an estimated cost; others' only to admins", async () => {
    const { user, other, admin } = await userOtherAdmin();
    const s = await scenario([
      { text: "counted", usage: { input_tokens: 1000, output_tokens: 200 } },
    ]);
    await sendAs(user.token, `count ${s.marker}`);
    expect((await api(user.token, "/api/me")).body).toEqual({
      user: user.id,
      role: "user",
      via: "token",
    });
    const usage = await api(user.token, "/api/usage");
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({
      user: user.id,
      today: { tasks: 1, inputTokens: 1000, outputTokens: 200, modelCalls: 1 },
      allTime: { tasks: 1 },
    });
    // Sonnet list prices: 1000 * $3 + 200 * $15 per million.
    const body = usage.body as {
      today: { estimatedCostUsd: number };
      spent: { dayTokens: number };
    };
    expect(body.today.estimatedCostUsd).toBeCloseTo(0.006, 6);
    // Budgets count tokens at their price relative to an input token: 1000 + 200 x 5.
    expect(body.spent.dayTokens).toBe(2000);
    expect((await api(other.token, `/api/usage?user=${user.id}`)).status).toBe(403);
    expect((await api(admin.token, `/api/usage?user=${user.id}`)).body).toMatchObject({
      user: user.id,
    });
  });

  it("creates users and sets budgets through the admin API", async () => {
    const admin = await newUser("admin");
    const id = `api-${crypto.randomUUID().slice(0, 8)}`;
    const created = await api(admin.token, "/api/admin/users", {
      method: "POST",
      body: JSON.stringify({ id, role: "user", agents: ["assistant"] }),
    });
    expect(created.status).toBe(201);
    const token = created.body?.token as string;
    expect(token).toMatch(/^a2a_/);
    expect(
      (await api(admin.token, "/api/admin/users", { method: "POST", body: JSON.stringify({ id }) }))
        .status,
    ).toBe(409);
    expect(
      (
        await api(admin.token, "/api/admin/users", {
          method: "POST",
          body: JSON.stringify({ id: "Bad Id" }),
        })
      ).status,
    ).toBe(400);
    const budget = await api(admin.token, `/api/admin/users/${id}/budget`, {
      method: "POST",
      body: JSON.stringify({ dayTokens: 500 }),
    });
    expect(budget.body).toMatchObject({ user: { id, budget: { dayTokens: 500 } } });
    const s = await scenario([{ text: "too expensive" }]);
    expect((await sendAs(token, `x ${s.marker}`)).status.state).toBe("TASK_STATE_REJECTED");
    expect((await api(token, "/api/admin/users")).status).toBe(403);
    const listed = await api(admin.token, "/api/admin/users");
    expect(JSON.stringify(listed.body)).not.toContain("hash");
  });

  it("lets only admins write an agent's shared memory, which every user's prompt shows", async () => {
    const admin = await newUser("admin");
    const user = await newUser();
    const note = `Shared rule ${crypto.randomUUID().slice(0, 6)}`;
    expect(
      (await api(user.token, "/api/admin/agents/writer/memory", { method: "PUT", body: note }))
        .status,
    ).toBe(403);
    expect(
      (await api(admin.token, "/api/admin/agents/writer/memory", { method: "PUT", body: note }))
        .status,
    ).toBe(200);
    expect(await systemPromptAs(user.token, "/agents/writer/")).toContain(note);
  });
});

describe("agent identities at runtime", () => {
  it("validates an uploaded IDENTITY.md, serves its card at once, runs tasks on it, and reverts", async () => {
    const admin = await newUser("admin");
    const user = await newUser();
    const original = await callWorker("/api/admin/agents/deep-thinker/identity", {
      headers: bearer(admin.token),
    });
    expect(original.status).toBe(200);
    expect(await original.text()).toMatch(/^---\nname: deep-thinker/);
    const text = [
      "---",
      "name: deep-thinker",
      "description: A replaced thinker for this test.",
      "version: 9.9.9",
      "model: claude-sonnet-4-6",
      "maxTurns: 5",
      "maxTokens: 4096",
      "---",
      "You are the replaced thinker. Say REPLACED.",
    ].join("\n");
    const put = (body: string, name = "deep-thinker") => putIdentity(name, body, admin.token);
    const bad = await put(text.replace("maxTurns: 5", "maxTurns: lots"));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { message: expect.stringContaining("frontmatter.maxTurns") },
    });
    const misnamed = await put(text, "writer");
    expect(misnamed.status).toBe(400);
    expect(await misnamed.json()).toMatchObject({
      error: {
        message:
          'agents/writer/IDENTITY.md (uploaded):2:7: frontmatter.name: "deep-thinker" must equal the directory name "writer"',
      },
    });
    const programmed = await put(text.replace("maxTurns: 5", "program: conformance"));
    expect(programmed.status).toBe(400);
    expect(await programmed.json()).toMatchObject({
      error: { message: expect.stringMatching(/:\d+:1: frontmatter\.model: not with program/) },
    });
    expect((await put(text)).status).toBe(200);
    const card = (await (
      await callWorker("/agents/deep-thinker/.well-known/agent-card.json", {
        headers: { "A2A-Version": "1.0" },
      })
    ).json()) as { description: string; version: string };
    expect(card).toMatchObject({ version: "9.9.9" });
    expect(card.description).toContain("A replaced thinker for this test.");
    expect(await systemPromptAs(user.token, "/agents/deep-thinker/")).toContain(
      "You are the replaced thinker.",
    );
    const user403 = await callWorker("/api/admin/agents/deep-thinker/identity", {
      method: "PUT",
      headers: bearer(user.token),
      body: text,
    });
    expect(user403.status).toBe(403);
    expect((await deleteIdentity("deep-thinker", admin.token)).status).toBe(204);
    const reverted = (await (
      await callWorker("/agents/deep-thinker/.well-known/agent-card.json", {
        headers: { "A2A-Version": "1.0" },
      })
    ).json()) as { version: string };
    expect(reverted.version).toBe("1.0.0");
  });
});

describe("sessions", () => {
  it("lists, reads and deletes the caller's conversations; others see nothing", async () => {
    const user = await newUser();
    const other = await newUser();
    const s = await scenario([{ text: "first answer" }, { text: "second answer" }]);
    const first = await sendAs(user.token, `one ${s.marker}`);
    await sendAs(user.token, `two ${s.marker}`, { contextId: first.contextId });
    const list = await api(user.token, "/api/sessions");
    expect(list.body?.sessions).toEqual([
      expect.objectContaining({ contextId: first.contextId, agent: "assistant", tasks: 2 }),
    ]);
    const session = await api(user.token, `/api/sessions/${first.contextId}`);
    const messages =
      (session.body?.messages as Array<{ role: string; parts: Array<{ text?: string }> }>) ?? [];
    expect(messages.map((m) => m.role)).toEqual([
      "ROLE_USER",
      "ROLE_AGENT",
      "ROLE_USER",
      "ROLE_AGENT",
    ]);
    expect(messages[3]?.parts[0]?.text).toBe("second answer");
    expect((await api(other.token, `/api/sessions/${first.contextId}`)).status).toBe(404);
    expect(
      (await api(other.token, `/api/sessions/${first.contextId}`, { method: "DELETE" })).status,
    ).toBe(404);
    expect((await api(other.token, "/api/sessions")).body?.sessions).toEqual([]);

    expect(
      (await api(user.token, `/api/sessions/${first.contextId}`, { method: "DELETE" })).status,
    ).toBe(204);
    expect((await api(user.token, "/api/sessions")).body?.sessions).toEqual([]);
    expect((await rpcAs(user.token, "GetTask", { id: first.id })).body.error).toMatchObject({
      code: -32001,
    });
    expect(await env.FILES.head(`tasks/${first.id}/artifacts/answer.md`)).toBeNull();
  });
});

describe("privacy", () => {
  it("exports everything about a user, then erases it so that nothing is left", async () => {
    const { user, other, admin } = await userOtherAdmin();
    const s = await scenario([
      ...savingTurns({ "diary.md": "private diary" }, "likes tea", { "notes.md": "scratch notes" }),
      { text: "all saved" },
    ]);
    const task = await sendAs(user.token, `save ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");

    expect((await api(other.token, `/api/users/${user.id}/data`)).status).toBe(404);
    const exported = await api(user.token, `/api/users/${user.id}/data`);
    expect(exported.status).toBe(200);
    const data = exported.body as {
      user: { id: string };
      tokens: Array<Record<string, unknown>>;
      tasks: Array<{ id: string }>;
      agents: Record<string, { files: Record<string, string>; memory: string | null }>;
      scratchpads: Record<string, Record<string, string>>;
    };
    expect(data.user.id).toBe(user.id);
    expect(JSON.stringify(data.tokens)).not.toMatch(/[0-9a-f]{64}/);
    expect(data.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(data.agents.assistant?.files["diary.md"]).toBe("private diary");
    expect(data.agents.assistant?.memory).toContain("likes tea");
    // Scratchpads by id: one per conversation.
    const scratchId = await conversationScratchId(user.id, "assistant", task.contextId);
    expect(data.scratchpads[scratchId]?.["notes.md"]).toBe("scratch notes");

    expect(
      (await api(other.token, `/api/users/${user.id}/data`, { method: "DELETE" })).status,
    ).toBe(404);
    expect((await api(user.token, `/api/users/${user.id}/data`, { method: "DELETE" })).status).toBe(
      204,
    );

    // Nothing is left: D1 rows, R2 objects, the task object, the workspace, the token.
    const rows = await env.DB.batch([
      env.DB.prepare("SELECT COUNT(*) AS n FROM tasks WHERE owner = ?").bind(user.id),
      env.DB.prepare("SELECT COUNT(*) AS n FROM users WHERE id = ?").bind(user.id),
      env.DB.prepare("SELECT COUNT(*) AS n FROM tokens WHERE user_id = ?").bind(user.id),
    ]);
    for (const r of rows) expect((r.results[0] as { n: number }).n).toBe(0);
    for (const prefix of [`agents/assistant/users/${user.id}/`, `tasks/${task.id}/`])
      expect((await env.FILES.list({ prefix })).objects).toEqual([]);
    expect((await rpcAs(admin.token, "GetTask", { id: task.id })).body.error).toMatchObject({
      code: -32001,
    });
    expect((await api(user.token, "/api/usage")).status).toBe(401);
    const after = await api(admin.token, `/api/users/${user.id}/data`);
    expect(after.body).toMatchObject({ tasks: [], agents: {}, scratchpads: {}, tokens: [] });
  });
});

describe("privacy export of a long file", () => {
  it("exports a file of more than one read page exactly", async () => {
    const { user } = await userOtherAdmin();
    const text = Array.from({ length: 4_500 }, (_, i) => `line ${i + 1}`).join("\n");
    const written = await workspaceFor(env.WORKSPACES, "assistant", user.id).write(
      "long.txt",
      `${text}\n`,
      { taskId: "t-export" },
    );
    expect(written.ok).toBe(true);
    const exported = await api(user.token, `/api/users/${user.id}/data`);
    const agents = (exported.body as { agents: Record<string, { files: Record<string, string> }> })
      .agents;
    expect(agents.assistant?.files["long.txt"]).toBe(`${text}\n`);
  });
});

describe("retention", () => {
  it("a task erases its own data from its alarm; the cron sweeps expired index rows", async () => {
    const user = await newUser();
    const s = await scenario([{ text: "short-lived" }]);
    const task = await sendAs(user.token, `expire ${s.marker}`);
    const stub = env.TASKS.get(env.TASKS.idFromName(task.id));
    await runInDurableObject(stub, async (instance) => {
      await (instance as unknown as TaskObject).runtime.scheduler.schedule(
        RETENTION_JOB,
        "retention",
        Date.now() - 1,
      );
    });
    // The alarm is due at once: it may fire on its own before runDurableObjectAlarm does.
    await runDurableObjectAlarm(stub);
    const gone = await until(
      async () => (await rpcAs(user.token, "GetTask", { id: task.id })).body.error,
      (error) => error !== undefined,
      60_000,
    );
    expect(gone).toMatchObject({ code: -32001 });
    const left = await until(
      async () => (await env.FILES.list({ prefix: `tasks/${task.id}/` })).objects,
      (objects) => objects.length === 0,
    );
    expect(left).toEqual([]);

    const swept = await sweepAll(
      { ...env, RETENTION_DAYS: "1" } as Env,
      Date.now() + 2 * 86_400_000,
    );
    expect(swept).toBeGreaterThanOrEqual(1);
    const row = await env.DB.prepare("SELECT id FROM tasks WHERE id = ?").bind(task.id).first();
    expect(row).toBeNull();
    // Erasing a task is many storage calls: room for a loaded machine.
  }, 120_000);
});

describe("CORS", () => {
  it("answers preflights for listed origins only", async () => {
    const withCors = { ...closedEnv, CORS_ORIGINS: "https://inspector.example" } as Env;
    const preflight = (origin: string) =>
      callWorker(
        "/",
        {
          method: "OPTIONS",
          headers: {
            Origin: origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, a2a-version, content-type",
          },
        },
        withCors,
      );
    const ok = await preflight("https://inspector.example");
    expect(ok.status).toBe(204);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe("https://inspector.example");
    expect(ok.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("a2a-version");
    const other = await preflight("https://elsewhere.example");
    expect(other.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});
