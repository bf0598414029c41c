/**
 * POST /api/sessions: the server issues a conversation's contextId, for an anonymous caller and a
 * user alike, without storing anything; a SendMessage naming it runs in that conversation, which
 * the list, read and delete then know. Unknown, forbidden and malformed requests are refused.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWorker, sendTask, userMessage, type WireTask } from "../helpers/a2a.ts";
import { callWorker, newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";

type Json = Record<string, unknown>;

async function create(init: RequestInit, token?: string) {
  const headers = { "content-type": "application/json", ...(init.headers ?? {}) } as Json;
  const response = token
    ? await callWorker("/api/sessions", {
        ...init,
        method: "POST",
        headers: { ...headers, Authorization: `Bearer ${token}` } as HeadersInit,
      })
    : await fetchWorker("/api/sessions", {
        ...init,
        method: "POST",
        headers: headers as HeadersInit,
      });
  return { status: response.status, body: (await response.json()) as Json };
}

describe("POST /api/sessions", () => {
  it("gives an anonymous caller a new conversation that its next message continues", async () => {
    const made = await create({ body: JSON.stringify({ agent: "writer" }) });
    expect(made.status).toBe(201);
    const contextId = made.body.contextId as string;
    expect(contextId).toMatch(/^[0-9a-f]{32}$/);
    expect(made.body).toMatchObject({
      agent: "writer",
      endpoint: "http://harness.test/agents/writer/",
    });
    // Nothing stored yet: the session is not there to read until its first message.
    expect((await fetchWorker(`/api/sessions/${contextId}`)).status).toBe(404);
    const again = await create({});
    expect(again.body.contextId).not.toBe(contextId);
    expect(again.body.agent).toBe("assistant");

    const s = await scenario([{ text: "written" }]);
    const task = await sendTask(
      { message: userMessage(`first words ${s.marker}`, { contextId }) },
      { path: "/agents/writer/" },
    );
    expect(task.contextId).toBe(contextId);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const read = (await (await fetchWorker(`/api/sessions/${contextId}`)).json()) as {
      tasks: Array<{ id: string }>;
    };
    expect(read.tasks.map((t) => t.id)).toEqual([task.id]);
    expect((await fetchWorker(`/api/sessions/${contextId}`, { method: "DELETE" })).status).toBe(
      204,
    );
  });

  it("gives a user a conversation listed once its first message is sent", async () => {
    const user = await newUser();
    const made = await create({ body: JSON.stringify({ agent: "assistant" }) }, user.token);
    expect(made.status).toBe(201);
    const contextId = made.body.contextId as string;
    const list = async () =>
      (
        (await (
          await callWorker("/api/sessions", { headers: { Authorization: `Bearer ${user.token}` } })
        ).json()) as { sessions: Array<{ contextId: string; agent: string }> }
      ).sessions;
    expect(await list()).toEqual([]);
    const s = await scenario([{ text: "hello back" }]);
    const sent = await rpcAs<{ task: WireTask }>(user.token, "SendMessage", {
      message: userMessage(`hello ${s.marker}`, { contextId }),
    });
    expect(sent.body.result?.task.contextId).toBe(contextId);
    expect(await list()).toEqual([expect.objectContaining({ contextId, agent: "assistant" })]);
  });

  it("refuses an unknown or forbidden agent, a bad body, and callers without credentials", async () => {
    const limited = await newUser("user", ["writer"]);
    expect(await create({ body: JSON.stringify({ agent: "nobody" }) })).toMatchObject({
      status: 404,
      body: { error: { message: "no agent nobody" } },
    });
    expect(
      (await create({ body: JSON.stringify({ agent: "assistant" }) }, limited.token)).status,
    ).toBe(403);
    expect(
      (await create({ body: JSON.stringify({ agent: "writer" }) }, limited.token)).status,
    ).toBe(201);
    expect((await create({ body: "{not json" })).status).toBe(400);
    expect((await create({ body: JSON.stringify({ agent: "writer", extra: 1 }) })).status).toBe(
      400,
    );
    expect((await create({ body: JSON.stringify({ agent: "__proto__" }) })).status).toBe(400);
    // Anonymous access off: credentials needed, as for every session route.
    const closed = await callWorker("/api/sessions", { method: "POST" });
    expect(closed.status).toBe(401);
    expect(env.ALLOW_ANONYMOUS).toBe("true");
  });
});
