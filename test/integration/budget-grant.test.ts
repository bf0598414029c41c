/**
 * The admission's budget grant (users/budget-grant.ts): the edge's one call to the caller's user
 * object reserves the first model call's budget with the admission, the task's first call takes
 * it without a second call, and a grant no model call takes is released, never left counting.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { setBudget } from "../../src/auth/users-store.ts";
import { loadConfig } from "../../src/config/config.ts";
import { INITIAL_LOOP_STATE } from "../../src/loop/loop-state.ts";
import { faultCounts, setFaults } from "../../src/platform/faults/fault-injector.ts";
import { userCounters } from "../../src/platform/object-names.ts";
import type { BudgetGrant } from "../../src/protocol/app-types.ts";
import { HeldGrant } from "../../src/task/runtime/held-grant.ts";
import { budgetGate } from "../../src/task/turn/budget-gate.ts";
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

  it("holds the message's place in the minute's window: one row for both, counted all the same", async () => {
    const counters = userObject(env, `user:grant-${crypto.randomUUID()}`);
    const grant = { tokens: 1_000, dayLimit: 1_500, monthLimit: 0 };
    const first = crypto.randomUUID();
    expect(await counters.admit(2, first, undefined, grant)).toEqual({ ok: true, granted: 1_000 });
    // The day cannot hold a second grant: this message takes a row of the window itself.
    expect(await counters.admit(2, crypto.randomUUID(), undefined, grant)).toEqual({ ok: true });
    const refused = await counters.admit(2, crypto.randomUUID(), undefined, grant);
    expect(refused).toMatchObject({ ok: false });
    // Released or settled, the grant's reservation still holds its message's place.
    await counters.settle(first, 0);
    expect(await counters.admit(2, crypto.randomUUID())).toMatchObject({ ok: false });
    // A retry of the admitted call is answered as it was, and counts nothing more.
    expect(await counters.admit(2, first, undefined, grant)).toEqual({ ok: true });
    const rows = await runInDurableObject(
      counters,
      (_object, state) =>
        state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM admissions").one().n,
    );
    expect(rows).toBe(1);
  });

  it("keeps its message's place in the window when its re-reservation is refused, released", async () => {
    const counters = userObject(env, `user:grant-${crypto.randomUUID()}`);
    const grant = { tokens: 1_000, dayLimit: 1_500, monthLimit: 0 };
    const first = crypto.randomUUID();
    expect(await counters.admit(1, first, undefined, grant)).toEqual({ ok: true, granted: 1_000 });
    // The task's first call needs more than the grant: its key reserved again, and refused.
    expect(await counters.reserve(first, 2_000, 1_500, 0)).toMatchObject({ ok: false });
    // The grant is released (nothing counts against the day), but the message still counts:
    // one message a minute, so a second one within the minute is refused.
    expect((await counters.usage()).dayTokens).toBe(0);
    expect(await counters.admit(1, crypto.randomUUID(), undefined, grant)).toMatchObject({
      ok: false,
    });
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

describe("the budget gate with a grant", () => {
  /** A gate of the task `taskId` of `owner` on the counters `counters`, holding `grant` (if any). */
  function gateWith(owner: string, counters: string, grant?: BudgetGrant, taskId = "task-1") {
    const held = new HeldGrant(env, () => {});
    held.hold(grant);
    const task = {
      loopState: { get: () => INITIAL_LOOP_STATE },
      background: (work: Promise<void>) => void work.catch(() => {}),
      budgetHint: { budget: { dayTokens: 1_000_000 }, at: Date.now() },
      grant: held,
    } as const;
    const record = { id: taskId, owner, metadata: {} };
    const gate = budgetGate(env, loadConfig(env), task, record, counters);
    if (!gate) throw new Error("no budget gate");
    return gate;
  }

  /** The tokens each open reservation of `counters` holds, by key. */
  const open = (counters: string) =>
    runInDurableObject(userObject(env, counters), (_object, state) =>
      state.storage.sql
        .exec<{ key: string; tokens: number }>(
          "SELECT key, tokens FROM reservations WHERE settled = 0",
        )
        .toArray(),
    );

  /** A grant of 50,000 tokens admitted on `counters`, trusted until `trustedUntil`. */
  async function granted(counters: string, trustedUntil: number): Promise<BudgetGrant> {
    const key = crypto.randomUUID();
    const ask = { tokens: 50_000, dayLimit: 1_000_000, monthLimit: 0 };
    expect(await userObject(env, counters).admit(0, key, undefined, ask)).toMatchObject({
      granted: 50_000,
    });
    return { key, tokens: 50_000, counters, trustedUntil };
  }

  it("takes a fresh grant as it is, and reserves an old one again at the estimate", async () => {
    const owner = `grant-gate-${crypto.randomUUID()}`;
    const counters = `user:${owner}`;
    const fresh = await granted(counters, Date.now() + 60_000);
    expect(await gateWith(owner, counters, fresh).reserve(1_000)).toBeNull();
    expect(await open(counters)).toEqual([{ key: fresh.key, tokens: 50_000 }]);
    await userObject(env, counters).settle(fresh.key, 0);
    // A grant past its trust (its task waited its turn): reserved again, checked, at the estimate.
    const old = await granted(counters, Date.now() - 1);
    expect(await gateWith(owner, counters, old).reserve(1_000)).toBeNull();
    expect(await open(counters)).toEqual([{ key: old.key, tokens: 1_000 }]);
  });

  it("counts a step's settlement and its rerun's apart, whichever arrives last", async () => {
    const owner = `grant-rerun-${crypto.randomUUID()}`;
    const counters = `user:${owner}`;
    // The same turn and attempt run twice (the first run's call answered, its turn not kept).
    const first = gateWith(owner, counters);
    const again = gateWith(owner, counters);
    expect(await first.reserve(1_000)).toBeNull();
    expect(await again.reserve(1_000)).toBeNull();
    await first.settle(300); // arrives after the rerun reserved
    await again.settle(200);
    await until(
      () => userObject(env, counters).usage(),
      (usage) => usage.dayTokens === 500,
    );
    expect(await open(counters)).toEqual([]);
  });
});
