/**
 * Remote A2A agents through the A2A endpoint with the scripted model. The registry (vitest
 * config) holds this Worker itself behind a service binding (`remote-researcher`,
 * `remote-writer`) and an agent that is down. The a2a_* tools go through the official SDK client;
 * the task tool runs a registry agent as a remote sub-agent that shares the scratchpad; call rules
 * and the SSRF guard refuse what they must; /health/deep reports reachability.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import { HARNESS_EVENTS_EXTENSION } from "../../src/protocol/extensions.ts";
import { resolveTarget, targetFetch } from "../../src/remote/client.ts";
import { remoteAgentsFor } from "../../src/remote/handle.ts";
import { a2aCallTool } from "../../src/tools/agents/a2a-call.ts";
import { a2aCallStreamingTool } from "../../src/tools/agents/a2a-call-streaming.ts";
import { answerText, fetchWorker, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { restoreScenario } from "../helpers/approval.ts";
import { newUser } from "../helpers/as-user.ts";
import { modelRequests, offeredTools, scenario, toolResults } from "../helpers/fake-model.ts";
import { getTask, startTask, untilState } from "../helpers/tasks.ts";
import { toolContext } from "../helpers/tool-context.ts";
import { taskInput, textToolTurn as tool } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";

const send = async (text: string, path = "/", headers: Record<string, string> = {}) =>
  (await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(text) }, { path, headers }))
    .result?.task as WireTask;
/** The registry's remote agents call as the admin key (vitest config): the same principal. */
const AS_ADMIN_KEY = { Authorization: `Bearer ${env.ADMIN_API_KEY}` };

/** The object details of a task's harness events. */
const eventDetails = (task: WireTask) =>
  (
    (task.history ?? []) as Array<{
      parts: Array<{ data?: { detail?: unknown } }>;
      extensions?: string[];
    }>
  )
    .filter((m) => m.extensions?.includes(HARNESS_EVENTS_EXTENSION))
    .map((m) => m.parts[1]?.data?.detail)
    .filter((d): d is Record<string, unknown> => typeof d === "object" && d !== null);

const eventTexts = (task: WireTask) =>
  (task.history ?? [])
    .filter((m) => m.extensions?.includes(HARNESS_EVENTS_EXTENSION))
    .map((m) => m.parts[0]?.text ?? "");

describe("a2a tools", () => {
  it("lists the registry and reads a card through a service binding", async () => {
    const s = await scenario([
      tool("a2a_list", {}),
      tool("a2a_discover", { agent: "remote-researcher" }),
      { text: "ok" },
    ]);
    const task = await send(`who is there ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const [list, card] = await toolResults(s.id);
    expect(list).toContain("- remote-researcher: The researcher, served by another deployment");
    expect(list).toContain("[service binding HARNESS_SELF]");
    expect(list).toContain("- down: An agent that is down [http://127.0.0.1:9/]");
    // The card itself, as compact JSON.
    expect(JSON.parse(card as string)).toMatchObject({
      name: "researcher",
      version: "1.0.0",
      url: "https://self.test/agents/researcher/",
      interfaces: expect.arrayContaining([
        {
          url: "https://self.test/agents/researcher/",
          protocolBinding: "JSONRPC",
          protocolVersion: "1.0",
        },
      ]),
      capabilities: { streaming: true, pushNotifications: true },
      skills: expect.arrayContaining([
        expect.objectContaining({
          id: expect.any(String),
          examples: expect.arrayContaining([expect.any(String)]),
        }),
      ]),
      security: null,
    });
  });

  it("calls a remote agent blocking, and not blocking then reads the task", async () => {
    const remote = await scenario([{ text: "Remote says hello." }, { text: "Second answer." }]);
    const s = await scenario([
      tool("a2a_call", { agent: "remote-researcher", message: `hi ${remote.marker}` }),
      { text: "got it" },
    ]);
    const task = await send(`call ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const [blocking] = await toolResults(s.id);
    expect(blocking).toMatch(/^remote-researcher answered \(completed; task [0-9a-f-]+, context/);
    expect(blocking).toContain("Remote says hello.");
    expect(blocking).toContain("Artifacts: answer");

    const later = await scenario([{ text: "Later answer." }]);
    const s2 = await scenario([
      tool("a2a_call", {
        agent: "remote-researcher",
        message: `later ${later.marker}`,
        blocking: false,
      }),
      { text: "started" },
    ]);
    await send(`start ${s2.marker}`);
    const [started] = await toolResults(s2.id);
    const remoteId = /task ([0-9a-f-]{36})/.exec(started ?? "")?.[1] as string;
    expect(remoteId).toBeDefined();
    const s3 = await scenario([
      tool("a2a_get_task", { agent: "remote-researcher", task_id: remoteId }),
      { text: "read" },
    ]);
    // The remote task finishes on its own; reading it shows the answer.
    await untilState(remoteId, "TASK_STATE_COMPLETED", undefined, { headers: AS_ADMIN_KEY });
    await send(`read ${s3.marker}`);
    expect((await toolResults(s3.id))[0]).toContain("Later answer.");
  });

  it.each([a2aCallTool, a2aCallStreamingTool])(
    "$name stops at the step's deadline with the remote task's id, the remote task left running",
    async (callTool) => {
      // The remote answers in about 4 s; the step may wait 1 s.
      const remote = await scenario([{ text: "Slow remote answer.", chunkSize: 4, delayMs: 800 }]);
      const context = toolContext({
        remote: remoteAgentsFor(env, loadConfig(env), "assistant", "d".repeat(32)),
        deadline: Date.now() + 1_000,
      });
      const call = await callTool.run(
        { agent: "remote-researcher", message: `slow ${remote.marker}` },
        context,
      );
      expect(call.isError).toBeFalsy();
      expect(call.content).toMatch(/answered \((submitted|working); task [0-9a-f-]{36}/);
      const remoteId = /task ([0-9a-f-]{36})/.exec(String(call.content))?.[1] as string;
      expect(call.content).toContain(`Read it later with a2a_get_task (task_id ${remoteId})`);
      // The remote task was left running, not failed: it finishes, and reading it gives the answer.
      const done = await untilState(remoteId, "TASK_STATE_COMPLETED", 30_000, {
        headers: AS_ADMIN_KEY,
      });
      expect(answerText(done)).toBe("Slow remote answer.");
    },
  );

  it("relays a remote agent's stream onto the caller's stream", async () => {
    const remote = await scenario([
      tool("write_todos", { todos: [{ content: "look things up", status: "in_progress" }] }),
      { text: "Streamed remote answer.", chunkSize: 5 },
    ]);
    const s = await scenario([
      tool("a2a_call_streaming", { agent: "remote-researcher", message: `go ${remote.marker}` }),
      { text: "relayed" },
    ]);
    const task = await send(`stream ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect((await toolResults(s.id))[0]).toContain("Streamed remote answer.");
    const texts = eventTexts(task);
    expect(texts).toContain("remote-researcher: Plan: 0 of 1 done");
    expect(texts).toContain("remote-researcher is answering");
  });

  it("turns an unreachable agent, a refused URL and a call rule into tool errors; the task goes on", async () => {
    const s = await scenario([
      tool("a2a_call", { agent: "down", message: "hello?" }),
      tool("a2a_discover", { agent: "http://169.254.169.254/" }),
      tool("a2a_call", { agent: "nobody", message: "x" }),
      { text: "carried on" },
    ]);
    const task = await send(`fail ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const [down, ssrf, unknown] = await toolResults(s.id);
    expect(down).toMatch(/^ERROR the A2A agent down could not be reached or refused the call: /);
    expect(ssrf).toMatch(/^ERROR 169\.254\.169\.254 is the cloud metadata address/);
    expect(unknown).toMatch(/^ERROR no remote agent named "nobody"; registry: remote-researcher/);

    const ruled = await scenario([
      tool("a2a_call", { agent: "remote-writer", message: "write" }),
      { text: "refused" },
    ]);
    await send(`rules ${ruled.marker}`, "/agents/deep-thinker/");
    expect((await toolResults(ruled.id))[0]).toBe(
      "ERROR AGENT_CALL_RULES do not let deep-thinker call remote-writer",
    );
  });

  it("refuses ad-hoc agent URLs that name local hosts; registry entries are the operator's", async () => {
    const strict = { ...loadConfig(env), webFetchAllowPrivate: false };
    for (const url of ["http://intranet/", "http://localhost:8787/", "http://nas.lan/"]) {
      const resolved = resolveTarget(strict, url);
      expect(resolved.ok, url).toBe(false);
      if (!resolved.ok) expect(resolved.error).toMatch(/single-label|loopback|local-only/);
    }
    // A public card naming a local endpoint: every request is checked again, and refused.
    const publicTarget = resolveTarget(strict, "https://agents.example.com/");
    if (!publicTarget.ok) throw new Error(publicTarget.error);
    const guarded = targetFetch(env, strict, publicTarget.target, "0".repeat(32));
    await expect(guarded("http://intranet/a2a", { method: "POST" })).rejects.toThrow(
      /single-label name/,
    );
    // The operator's registry entry (127.0.0.1 in the tests) is not checked.
    expect(resolveTarget(strict, "down")).toMatchObject({ ok: true });
  });
});

describe("remote sub-agents", () => {
  it("runs a registry agent through the task tool, sharing the scratchpad", async () => {
    const remote = await scenario([
      tool("scratch_write", { path: "remote-notes.md", content: "written remotely" }),
      { text: "Remote findings in remote-notes.md." },
    ]);
    const parent = await scenario([
      tool(
        "task",
        taskInput("remote-researcher", "research remotely", `Research. ${remote.marker}`),
      ),
      tool("scratch_read", { path: "remote-notes.md" }),
      { text: "Used the remote findings." },
    ]);
    // The scratchpad is shared when both sides see the same principal (the registry's authSecret).
    const task = await send(`delegate remotely ${parent.marker}`, "/", AS_ADMIN_KEY);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const [answer, notes] = await toolResults(parent.id);
    expect(answer).toBe("Remote findings in remote-notes.md.");
    expect(notes).toContain("written remotely");
    const texts = eventTexts(task);
    expect(texts).toContain("Calling agent remote-researcher: research remotely");
    expect(texts).toContain("Agent remote-researcher started (remote): research remotely");
    expect(texts).toContain("Agent remote-researcher completed");
    // The remote task continues the parent's trace (traceparent) and names its caller.
    const childId = eventDetails(task).find((d) => d.state === "started")?.childTaskId as string;
    const child = await getTask(childId, { headers: AS_ADMIN_KEY });
    expect(child.metadata?.traceId).toBe(task.metadata?.traceId);
    expect(child.metadata?.remoteParent).toEqual({
      correlationId: expect.stringMatching(/^[0-9a-f]{32}$/),
      agent: "assistant",
    });
    // The remote side ran as a sub-agent: no ask_user, no task.
    const remoteTools = await offeredTools(remote.id);
    expect(remoteTools).not.toContain("ask_user");
    expect(remoteTools).not.toContain("task");
    // The parent's prompt lists registry agents as sub-agent types.
    const system = JSON.stringify((await modelRequests(parent.id))[0]?.body.system);
    expect(system).toContain("- remote-researcher: The researcher, served by another deployment");
  });

  it("a remote agent given everything it received can read nothing of the caller's conversation", async () => {
    const secret = `private medical question ${crypto.randomUUID().slice(0, 8)}`;
    const remote = await scenario([{ text: "Remote answer." }]);
    const parent = await scenario([
      tool("task", taskInput("remote-researcher", "look it up", `Look this up. ${remote.marker}`)),
      { text: "Done." },
    ]);
    // An anonymous caller: a task id or a contextId alone opens its conversation.
    const task = await send(`${secret} ${parent.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const childId = eventDetails(task).find((d) => d.state === "started")?.childTaskId as string;
    const received = (await rpc<WireTask>("GetTask", { id: childId }, { headers: AS_ADMIN_KEY }))
      .result as WireTask & { history: Array<Record<string, unknown>> };
    const sent = JSON.stringify(received.history[0]);
    // No id of the caller's deployment travels: not the task, not the conversation.
    expect(sent).not.toContain(task.id);
    expect(sent).not.toContain(task.contextId);
    // Playing the remote agent with no credentials: every value it got, tried as an id.
    const values = new Set(
      [...sent.matchAll(/"([A-Za-z0-9:_-]{8,})"/g)].map((m) => m[1] as string),
    );
    expect(values.size).toBeGreaterThan(2);
    for (const value of values) {
      const got = await rpc<WireTask>("GetTask", { id: value, historyLength: 10 });
      expect(JSON.stringify(got)).not.toContain(secret);
      const listed = await rpc("ListTasks", { contextId: value });
      expect(JSON.stringify(listed)).not.toContain(secret);
      const session = await fetchWorker(`/api/sessions/${value}`);
      expect(await session.text()).not.toContain(secret);
      for (const [path, method] of [
        [`/api/sessions/${value}`, "DELETE"],
        [`/tasks/${value}:cancel`, "POST"],
      ] as const)
        await fetchWorker(path, { method, headers: { "A2A-Version": "1.0" } });
    }
    // The conversation is whole: its task is still there, completed.
    expect((await getTask(task.id)).status.state).toBe("TASK_STATE_COMPLETED");
    // Many requests: room for a loaded machine.
  }, 120_000);

  it("passes a remote sub-agent's question up to the caller and the answer down", async () => {
    // The remote writer's task belongs to the principal the registry calls as (the admin key).
    const { restore: remote } = await restoreScenario("writer", "admin-key", "Restored remotely.");
    const parent = await scenario([
      tool("task", taskInput("remote-writer", "roll back remotely", `Roll back. ${remote.marker}`)),
      { text: "The remote writer rolled back." },
    ]);
    const started = await startTask(`remote approval ${parent.marker}`);
    const waiting = await untilState(started.id, "TASK_STATE_INPUT_REQUIRED");
    const parts = waiting.status.message?.parts ?? [];
    expect(parts[0]?.text).toBe("The remote-writer sub-agent asks:");
    expect(parts[1]?.text).toContain("Approve the call of checkpoint_restore");
    await rpc("SendMessage", { message: userMessage("yes", { taskId: waiting.id }) });
    const done = await untilState(waiting.id, "TASK_STATE_COMPLETED");
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(await toolResults(parent.id)).toEqual(["Restored remotely."]);
  });

  it("cancels a remote sub-agent's task with its parent", async () => {
    const remote = await scenario([{ text: "slow remote...", chunkSize: 1, delayMs: 400 }]);
    const parent = await scenario([
      tool("task", taskInput("remote-researcher", "slow", `Slow. ${remote.marker}`)),
      { text: "x" },
    ]);
    const task = await startTask(`slow remote ${parent.marker}`);
    const started = await until(
      () => getTask(task.id),
      (t) => eventDetails(t).some((d) => d.state === "started"),
    );
    const childId = eventDetails(started).find((d) => d.state === "started")?.childTaskId as string;
    await rpc("CancelTask", { id: task.id });
    const child = await untilState(childId, "TASK_STATE_CANCELED", undefined, {
      headers: AS_ADMIN_KEY,
    });
    expect(child.status.state).toBe("TASK_STATE_CANCELED");
  });

  it("answers a sub-agent type that is down with a tool error", async () => {
    const parent = await scenario([
      tool("task", { subagent_type: "down", description: "x", prompt: "anything" }),
      { text: "went on" },
    ]);
    const task = await send(`down ${parent.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect((await toolResults(parent.id))[0]).toMatch(
      /^ERROR Could not start down: the remote agent down is unreachable or refused the call/,
    );
  });
});

describe("/health/deep", () => {
  it("reports storage, model and each registry agent's reachability, to admins", async () => {
    const admin = await newUser("admin");
    const refused = await fetchWorker("/health/deep");
    expect(refused.status).toBe(403);
    const response = await fetchWorker("/health/deep", {
      headers: { Authorization: `Bearer ${admin.token}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      ok: boolean;
      checks: Record<string, { ok: boolean; ms: number }>;
      agents: Array<{ name: string; reachable: boolean; card?: { name: string } }>;
    };
    expect(body.ok).toBe(true);
    for (const name of ["d1", "r2", "durableObject", "model"])
      expect(body.checks[name], name).toMatchObject({ ok: true, ms: expect.any(Number) });
    const byName = Object.fromEntries(body.agents.map((a) => [a.name, a]));
    expect(byName["remote-researcher"]).toMatchObject({
      reachable: true,
      card: { name: "researcher" },
    });
    expect(byName.down?.reachable).toBe(false);
  });
});
