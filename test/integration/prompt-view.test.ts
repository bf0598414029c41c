/**
 * What the model sees (GET /api/tasks/<id>/prompt): the task's latest model requests, each body
 * byte for byte what the scripted model received, bounded to the last MODEL_REQUESTS_KEPT (bodies
 * in pieces: test/integration/task/long-rows.test.ts); only the owner (or an admin) reads it, and
 * no credential is in it.
 */
import { describe, expect, it } from "vitest";
import { MODEL_REQUESTS_KEPT } from "../../src/trace/model-requests.ts";
import type { WireTask as Task } from "../helpers/a2a.ts";
import { callWorker, newUser, rpcAs } from "../helpers/as-user.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { toolTurn } from "../helpers/turns.ts";

interface PromptView {
  taskId: string;
  kept: number;
  requests: Array<{ seq: number; kind: string; turn: number; attempt: number; body: string }>;
}

const getAs = (token: string, path: string) =>
  callWorker(path, { headers: { Authorization: `Bearer ${token}` } });

describe("the prompt view", () => {
  it("returns byte for byte the latest requests the model received, to the owner only", async () => {
    // Calls of a tool no agent has: any agent set answers them with an error result.
    const turns = Array.from({ length: MODEL_REQUESTS_KEPT + 1 }, (_, i) =>
      toolTurn("no_such_tool_for_prompt_view", { n: i, note: 'é\u{1F600}"<' }),
    );
    const script = await scenario([...turns, { text: "Done." }]);
    const user = await newUser();
    const sent = await rpcAs<{ task: Task }>(user.token, "SendMessage", {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: `Show me what you see. ${script.marker}` }],
      },
    });
    const task = sent.body.result?.task as Task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");

    const received = (await modelRequests(script.id)).map((r) => r.bodyText);
    expect(received.length).toBe(MODEL_REQUESTS_KEPT + 2);
    const response = await getAs(user.token, `/api/tasks/${task.id}/prompt`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const view = JSON.parse(text) as PromptView;
    expect(view.kept).toBe(MODEL_REQUESTS_KEPT);
    expect(view.requests.map((r) => r.body)).toEqual(received.slice(-MODEL_REQUESTS_KEPT));
    expect(view.requests.every((r) => r.kind === "turn")).toBe(true);
    expect(view.requests.map((r) => r.turn)).toEqual(
      [...view.requests.keys()].map((i) => (view.requests[0]?.turn ?? 0) + i),
    );
    const last = view.requests.at(-1);
    const raw = await getAs(user.token, `/api/tasks/${task.id}/prompt/${last?.seq}`);
    expect(raw.headers.get("content-type")).toContain("application/json");
    expect(await raw.text()).toBe(received.at(-1));
    // The API key travels in a header and is never kept.
    expect(text).not.toContain("test-key");
    expect(text.toLowerCase()).not.toContain("x-api-key");

    const stranger = await newUser();
    expect((await getAs(stranger.token, `/api/tasks/${task.id}/prompt`)).status).toBe(404);
    const raw404 = await getAs(stranger.token, `/api/tasks/${task.id}/prompt/${last?.seq}`);
    expect(raw404.status).toBe(404);
    const admin = await newUser("admin");
    const asAdmin = (await (
      await getAs(admin.token, `/api/tasks/${task.id}/prompt`)
    ).json()) as PromptView;
    expect(asAdmin.requests.length).toBe(MODEL_REQUESTS_KEPT);
  });
});
