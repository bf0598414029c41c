/**
 * Long work under the shipped defaults: a 200-turn task whose every turn reports the usage of a
 * realistic long task (test/helpers/long-task-usage.ts: a prompt of 35-57k tokens, nine tenths of
 * it read from the prompt cache) completes on its own, with the deployment's default turn limit,
 * time limit and token budgets (a user whose budgets are set to the shipped ones): budgets count
 * tokens weighted by price (model/budget-tokens.ts), so the cache reads that make up most of the
 * prompt count a tenth. The agent is uploaded without `maxTurns`, so the identity's default
 * applies whatever agents the deployment ships.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { setBudget } from "../../src/auth/users-store.ts";
import { loadConfig } from "../../src/config/config.ts";
import { budgetTokens } from "../../src/model/budget-tokens.ts";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { answerText, userMessage, type WireTask } from "../helpers/a2a.ts";
import { newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario, scenarioId } from "../helpers/fake-model.ts";
import { longTaskUsage } from "../helpers/long-task-usage.ts";
import { until } from "../helpers/until.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const TURNS = 200;

/** 199 turns that call a tool, then the answer; each names the scenario (compaction keeps it). */
function longTask(marker: string): Turn[] {
  const work = (i: number): Turn => ({
    text: `Step ${i + 1} ${marker}`,
    toolUses: [
      {
        name: "write_todos",
        input: { todos: [{ content: `step ${i + 1}`, status: "in_progress" }] },
      },
    ],
    usage: longTaskUsage(i),
  });
  return [
    ...Array.from({ length: TURNS - 1 }, (_, i) => work(i)),
    { text: `Done after ${TURNS} turns.`, usage: longTaskUsage(TURNS - 1) },
  ];
}

describe("long work under the shipped defaults", () => {
  it("a 200-turn task with realistic usage, cache reads included, completes", async () => {
    const shipped = loadConfig({});
    const here = loadConfig(env);
    // The test env runs with wrangler.toml's turn and time limits; the budgets are the user's.
    expect([here.maxTurns, here.maxTaskSeconds]).toEqual([
      shipped.maxTurns,
      shipped.maxTaskSeconds,
    ]);
    const { id, token } = await newUser();
    await setBudget(env.DB, id, shipped.budgets);
    const name = `long-${crypto.randomUUID().slice(0, 8)}`;
    expect(
      (await putIdentity(name, `---\nname: ${name}\n---\nYou work until done.\n`)).status,
    ).toBe(200);
    try {
      const named = scenarioId();
      const turns = longTask(named.marker);
      const run = await scenario(turns, { inOrder: true, id: named.id });
      const path = `/agents/${name}/`;
      const sent = await rpcAs<{ task: WireTask }>(
        token,
        "SendMessage",
        {
          message: userMessage(`Work long. ${run.marker}`),
          configuration: { returnImmediately: true },
        },
        path,
      );
      const taskId = sent.body.result?.task.id ?? "";
      const done = await until(
        async () => (await rpcAs<WireTask>(token, "GetTask", { id: taskId }, path)).body.result,
        (t) =>
          t?.status.state !== "TASK_STATE_WORKING" && t?.status.state !== "TASK_STATE_SUBMITTED",
        600_000,
      );
      expect(done?.status.state).toBe("TASK_STATE_COMPLETED");
      expect(done?.metadata?.stopReason ?? "end_turn").toBe("end_turn");
      expect(answerText(done as WireTask)).toContain(`Done after ${TURNS} turns.`);
      const usage = done?.metadata?.usage as { cacheReadTokens: number; modelCalls: number };
      const scripted = turns.reduce((sum, t) => sum + (t.usage?.cache_read_input_tokens ?? 0), 0);
      expect(usage.cacheReadTokens).toBeGreaterThanOrEqual(scripted);
      // Counted raw, the same tokens pass every shipped budget several times over.
      const raw = turns.reduce(
        (sum, t) => sum + Object.values(t.usage ?? {}).reduce((a, b) => a + b, 0),
        0,
      );
      expect(raw).toBeGreaterThan(shipped.budgets.taskTokens);
      const weighted = turns.reduce(
        (sum, t) =>
          sum +
          budgetTokens({
            inputTokens: t.usage?.input_tokens ?? 0,
            outputTokens: t.usage?.output_tokens ?? 0,
            cacheReadTokens: t.usage?.cache_read_input_tokens ?? 0,
            cacheWriteTokens: t.usage?.cache_creation_input_tokens ?? 0,
          }),
        0,
      );
      expect(weighted).toBeLessThan(shipped.budgets.taskTokens);
    } finally {
      await deleteIdentity(name);
    }
  }, 600_000);
});
