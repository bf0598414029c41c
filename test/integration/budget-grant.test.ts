/**
 * The admission's budget grant (users/budget-grant.ts): the edge's one call to the caller's user
 * object reserves the first model call's budget with the admission, the task's first call takes
 * it without a second call, and a grant no model call takes is released, never left counting.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { setBudget } from "../../src/auth/users-store.ts";
import { faultCounts, setFaults } from "../../src/platform/faults/fault-injector.ts";
import { userCounters } from "../../src/platform/object-names.ts";
import { userObject } from "../../src/users/limits.ts";
import { type WireTask as Task, userMessage } from "../helpers/a2a.ts";
import { newUser, postAs } from "../helpers/as-user.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { until } from "../helpers/until.ts";

afterEach(() => setFaults(null));

/** A user with a day budget (so model calls reserve), its counters and its open reservations. */
async function budgetedUser() {
  const user = await newUser();
  await setBudget(env.DB, user.id, { dayTokens: 10_000_000 });
  const counters = userObject(env, userCounters(user.id));
  const reservations = () =>
    runInDurableObject(counters, (_object, state) =>
      state.storage.sql
        .exec<{ key: string }>("SELECT key FROM reservations WHERE settled = 0")
        .toArray()
        .map((row) => row.key),
    );
  return { ...user, counters, reservations };
}

/** Sends `message` as `token`'s user; the JSON-RPC answer. */
async function sendAs(token: string, message: ReturnType<typeof userMessage>) {
  const response = await postAs(token, "SendMessage", { message });
  return (await response.json()) as { result?: { task: Task }; error?: { message: string } };
}

describe("the admission's budget grant", () => {
  it("is reserved with the admission, under its key, once however often the call is retried", async () => {
    const counters = userObject(env, `user:grant-${crypto.randomUUID()}`);
    const key = crypto.randomUUID();
    const grant = { tokens: 1_000, dayLimit: 2_500, monthLimit: 0 };
    expect(await counters.admit(0, key, undefined, grant)).toEqual({ ok: true, granted: 1_000 });
    // The answer was lost and the call retried: the same grant, not a second one.
    expect(await counters.admit(0, key, undefined, grant)).toEqual({ ok: true, granted: 1_000 });
    expect((await counters.usage()).dayTokens).toBe(1_000);
    // A grant the day cannot hold is not made; the request is admitted all the same.
    const big = { ...grant, tokens: 2_000 };
    expect(await counters.admit(0, crypto.randomUUID(), undefined, big)).toEqual({ ok: true });
    // Released (settled at 0): nothing counts.
    await counters.settle(key, 0);
    expect((await counters.usage()).dayTokens).toBe(0);
  });

  it("is the first model call's reservation: a one-turn task calls no reserve", async () => {
    const user = await budgetedUser();
    const s = await scenario([{ text: "granted" }]);
    setFaults("users.reserve:error:1"); // any reserve call would fail the task
    const answer = await sendAs(user.token, userMessage(`one turn ${s.marker}`));
    expect(answer.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(faultCounts()).toEqual({});
    await until(user.reservations, (keys) => keys.length === 0);
    expect((await user.counters.usage()).dayTokens).toBeGreaterThan(0);
  });

  it("is released when no task takes it: a send refused after its admission", async () => {
    const user = await budgetedUser();
    const unknown = { ...userMessage("to a task that is not there"), taskId: "no-such-task" };
    const answer = await sendAs(user.token, unknown);
    expect(answer.error?.message).toMatch(/not found/i);
    await until(user.reservations, (keys) => keys.length === 0);
    expect((await user.counters.usage()).dayTokens).toBe(0);
  });

  it("is released by a task that does not take its message (an ended task)", async () => {
    const user = await budgetedUser();
    const s = await scenario([{ text: "done" }]);
    const first = await sendAs(user.token, userMessage(`first ${s.marker}`));
    const task = first.result?.task as Task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    await until(user.reservations, (keys) => keys.length === 0);
    const spent = (await user.counters.usage()).dayTokens;
    const late = { ...userMessage("too late"), taskId: task.id, contextId: task.contextId };
    expect((await sendAs(user.token, late)).error?.message).toMatch(/has ended/);
    await until(user.reservations, (keys) => keys.length === 0);
    expect((await user.counters.usage()).dayTokens).toBe(spent);
    expect(await modelRequests(s.id)).toHaveLength(1);
  });
});
