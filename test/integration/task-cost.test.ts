/**
 * Cost where people look: a task's usage and estimated cost under the cost extension in its
 * metadata and in its final status update, the extension declared in both card versions, and
 * each conversation's usage and cost in /api/sessions.
 */
import { describe, expect, it } from "vitest";
import { estimateCost } from "../../src/model/pricing.ts";
import { COST_EXTENSION } from "../../src/protocol/extensions.ts";
import { fetchWorker, type WireTask as Task, userMessage } from "../helpers/a2a.ts";
import { callWorker, newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { until } from "../helpers/until.ts";

type Cost = { usage: Record<string, number>; estimatedCostUsd: number; model: string };

const usage = {
  input_tokens: 1000,
  output_tokens: 200,
  cache_read_input_tokens: 300,
  cache_creation_input_tokens: 40,
};
/** The same tokens, as the cost extension names them. */
const tokens = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 300, cacheWriteTokens: 40 };

describe("task cost", () => {
  it("is in the task's metadata, its final status update and its conversation's sums", async () => {
    const user = await newUser();
    const s = await scenario([{ text: "one", usage }]);
    const sent = await rpcAs<{ task: Task }>(user.token, "SendMessage", {
      message: userMessage(`a ${s.marker}`),
    });
    const task = sent.body.result?.task as Task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const cost = task.metadata?.[COST_EXTENSION] as Cost;
    expect(cost.model).toBe(task.metadata?.model && (task.metadata.model as { name: string }).name);
    expect(cost.usage).toEqual({ ...tokens, modelCalls: 1 });
    expect(cost.estimatedCostUsd).toBe(estimateCost(cost.model, tokens));
    expect(cost.estimatedCostUsd).toBeGreaterThan(0);
    expect(task.metadata?.usage).toEqual(cost.usage);

    // The final status update carries it too.
    const events = await callWorker(`/api/tasks/${task.id}/events`, {
      headers: { Authorization: `Bearer ${user.token}` },
    });
    const log = (await events.json()) as {
      events: Array<{
        event: { statusUpdate?: { status: { state: string }; metadata?: Record<string, unknown> } };
      }>;
    };
    const final = log.events
      .map((e) => e.event.statusUpdate)
      .filter((u) => u?.status.state === "TASK_STATE_COMPLETED");
    expect(final.at(-1)?.metadata?.[COST_EXTENSION]).toEqual(cost);

    // A second task in the conversation: /api/sessions sums both.
    const s2 = await scenario([{ text: "two" }]);
    const second = (
      await rpcAs<{ task: Task }>(user.token, "SendMessage", {
        message: userMessage(`b ${s2.marker}`, { contextId: task.contextId }),
      })
    ).body.result?.task as Task;
    const more = (second.metadata?.[COST_EXTENSION] as Cost | undefined)?.usage ?? {};
    const both = Object.fromEntries(
      Object.entries(tokens).map(([kind, n]) => [kind, n + (more[kind] ?? 0)]),
    ) as typeof tokens;
    const sessions = await until(
      async () => {
        const response = await callWorker("/api/sessions", {
          headers: { Authorization: `Bearer ${user.token}` },
        });
        return ((await response.json()) as { sessions: Array<Record<string, unknown>> }).sessions;
      },
      (rows) => rows.length === 1 && rows[0]?.tasks === 2 && rows[0]?.modelCalls === 2,
    );
    expect(sessions[0]).toMatchObject({
      contextId: task.contextId,
      ...both,
      modelCalls: 2,
      estimatedCostUsd: estimateCost(cost.model, both),
    });
  });

  it("is declared in both card versions", async () => {
    for (const version of ["1.0", "0.3"]) {
      const response = await fetchWorker("/agents/writer/.well-known/agent-card.json", {
        headers: { "A2A-Version": version },
      });
      const card = (await response.json()) as {
        capabilities: { extensions: Array<{ uri: string }> };
      };
      expect(card.capabilities.extensions.map((e) => e.uri)).toContain(COST_EXTENSION);
    }
  });
});
