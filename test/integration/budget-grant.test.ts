/**
 * A task's budget grant (users/budget-grant.ts): reserved by the task object when it takes a
 * message, beside its first step's reads; the first model call takes it as its reservation
 * without a call of its own, and a grant no model call takes is released, never left counting.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { setBudget } from "../../src/auth/users-store.ts";
import { loadConfig } from "../../src/config/config.ts";
import { INITIAL_LOOP_STATE } from "../../src/loop/loop-state.ts";
import { setFaults } from "../../src/platform/faults/fault-injector.ts";
import { userCounters } from "../../src/platform/object-names.ts";
import type { BudgetGrant } from "../../src/protocol/app-types.ts";
import type { Message } from "../../src/protocol/wire.ts";
import { HeldGrant } from "../../src/task/runtime/held-grant.ts";
import { budgetGate } from "../../src/task/turn/budget-gate.ts";
import { grantTokens } from "../../src/users/budget-grant.ts";
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

describe("a task's budget grant", () => {
  /** The keys of the reservations `user` made, settled or not. */
  const keys = (user: Awaited<ReturnType<typeof budgetedUser>>) =>
    runInDurableObject(user.counters, (_object, state) => {
      const sql = state.storage.sql;
      const made = sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'reservations'").toArray();
      if (made.length === 0) return [];
      return sql
        .exec<{ key: string }>("SELECT key FROM reservations")
        .toArray()
        .map((row) => row.key);
    });

  it("is reserved when the task takes its message and is its first model call's reservation", async () => {
    const user = await budgetedUser();
    const s = await scenario([{ text: "granted" }]);
    const message = userMessage(`one turn ${s.marker}`);
    const answer = await sendAs(user.token, message);
    const task = answer.result?.task as Task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    await until(user.reservations, (open) => open.length === 0);
    // One reservation in all, the grant's, settled with the call's usage.
    const made = await keys(user);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(new RegExp(`^grant:${task.id}:${message.messageId}:`));
    expect((await user.counters.usage()).dayTokens).toBeGreaterThan(0);
  });

  it("is not made for a message no task takes (an unknown task, an ended one)", async () => {
    const user = await budgetedUser();
    const unknown = { ...userMessage("to a task that is not there"), taskId: "no-such-task" };
    expect((await sendAs(user.token, unknown)).error?.message).toMatch(/not found/i);
    expect(await keys(user)).toEqual([]);
    const s = await scenario([{ text: "done" }]);
    const first = await sendAs(user.token, userMessage(`first ${s.marker}`));
    const task = first.result?.task as Task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    await until(user.reservations, (open) => open.length === 0);
    const spent = (await user.counters.usage()).dayTokens;
    const made = await keys(user);
    const late = { ...userMessage("too late"), taskId: task.id, contextId: task.contextId };
    expect((await sendAs(user.token, late)).error?.message).toMatch(/has ended/);
    expect(await keys(user)).toEqual(made);
    expect((await user.counters.usage()).dayTokens).toBe(spent);
    expect(await modelRequests(s.id)).toHaveLength(1);
  });

  it("is released when a newer one replaces it or the task settles without taking it", async () => {
    const owner = `grant-held-${crypto.randomUUID()}`;
    const counters = userCounters(owner);
    const work: Promise<void>[] = [];
    const held = new HeldGrant(env, (w) => void work.push(w));
    const hint = { budget: { dayTokens: 10_000_000 }, at: Date.now() };
    const record = (id: string) => ({ id, owner, counters });
    const message = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "x".repeat(380) }] };
    const chars = JSON.stringify(message.parts).length;
    held.prepare(record("task-a"), message as Message, 1_000, hint);
    held.begin();
    held.prepare(record("task-b"), message as Message, 1_000, hint); // the first is released
    held.begin();
    await Promise.all(work);
    const open = () =>
      runInDurableObject(userObject(env, counters), (_object, state) =>
        state.storage.sql
          .exec<{ key: string; tokens: number }>(
            "SELECT key, tokens FROM reservations WHERE settled = 0",
          )
          .toArray(),
      );
    const [only, ...more] = await open();
    expect(more).toEqual([]);
    expect(only?.key).toMatch(/^grant:task-b:m-1:/);
    expect(only?.tokens).toBe(grantTokens(chars, 1_000));
    held.release(); // the task settled with no model call
    await Promise.all(work);
    expect(await open()).toEqual([]);
    expect((await userObject(env, counters).usage()).dayTokens).toBe(0);
    expect(await held.take(counters)).toBeNull();
  });
});

describe("the budget gate with a grant", () => {
  /** A gate of the task `taskId` of `owner` on the counters `counters`, holding `grant` (if any). */
  function gateWith(owner: string, counters: string, grant?: BudgetGrant, taskId = "task-1") {
    // A held grant already reserved (held-grant.ts reserves it when its task takes a message).
    const held = { take: async () => grant ?? null } as unknown as HeldGrant;
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

  /** A grant of 50,000 tokens reserved on `counters`, trusted until `trustedUntil`. */
  async function granted(counters: string, trustedUntil: number): Promise<BudgetGrant> {
    const key = crypto.randomUUID();
    expect(await userObject(env, counters).reserve(key, 50_000, 1_000_000, 0)).toEqual({
      ok: true,
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
