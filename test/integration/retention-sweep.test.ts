/**
 * The retention sweep within Workers Free's limits (src/privacy/retention.ts): many expired anonymous
 * conversations (index rows, R2 files, a scratchpad, a workspace) are erased over several passes,
 * each one invocation under the local limit guard at CF_PLAN=free, none past its limits; rows still
 * in retention and users' tasks (RETENTION_DAYS 0) stay; the scan is indexed; and the sweep's
 * object runs the passes left after the first, from its alarm.
 */
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { anonymousOwner, newContextId } from "../../src/auth/anonymous.ts";
import { platformEnv } from "../../src/platform/bindings.ts";
import { PLAN_LIMITS } from "../../src/platform/cloudflare-limits.ts";
import {
  clearLimitBreaches,
  countSubrequest,
  inInvocation,
  invocationSpent,
  limitBreaches,
} from "../../src/platform/invocation-budget.ts";
import { stubByName } from "../../src/platform/object-stub.ts";
import { ERASURES, ROWS, type SweepPass, sweepExpired } from "../../src/privacy/retention.ts";
import { scratchKey, userKey, userPrefix } from "../../src/store/r2-keys.ts";
import { conversationScratchId } from "../../src/task/store/lineage.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import { until } from "../helpers/until.ts";

const DAY = 86_400_000;
const AGENT = "writer";

/** An index row of a task of `owner` in `contextId` whose status last changed `daysAgo` days ago. */
async function indexRow(
  owner: string,
  contextId: string,
  daysAgo: number,
  state = "TASK_STATE_COMPLETED",
) {
  const at = new Date(Date.now() - daysAgo * DAY).toISOString();
  await env.DB.prepare(
    `INSERT INTO tasks (id, agent, root_agent, context_id, owner, state, trace_id, created_at, updated_at, version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  )
    .bind(crypto.randomUUID(), AGENT, AGENT, contextId, owner, state, "0".repeat(32), at, at)
    .run();
}

/** An anonymous conversation with `tasks` index rows, a file, memory and a scratchpad. */
async function anonymousConversation(tasks: number, daysAgo: number) {
  const contextId = newContextId();
  const owner = await anonymousOwner(contextId);
  for (let i = 0; i < tasks; i++) await indexRow(owner, contextId, daysAgo);
  const written = await workspaceFor(env.WORKSPACES, AGENT, owner).write("notes.md", "secret", {
    taskId: "retention-probe",
  });
  expect(written.ok).toBe(true);
  await env.FILES.put(userKey(AGENT, owner, "memory/MEMORY.md"), "remembered");
  const scratch = await conversationScratchId(owner, AGENT, contextId);
  await env.FILES.put(scratchKey(owner, scratch, "plan.md"), "scratch");
  return { owner, contextId };
}

/** What is left of a conversation: its index rows, its R2 objects, its workspace's files. */
async function leftOf(c: { owner: string; contextId: string }) {
  const rows = await env.DB.prepare(
    "SELECT COUNT(*) AS n FROM tasks WHERE owner = ? AND context_id = ?",
  )
    .bind(c.owner, c.contextId)
    .first<number>("n");
  const r2 = (await env.FILES.list({ prefix: userPrefix(AGENT, c.owner) })).objects.length;
  const scratch = (await env.FILES.list({ prefix: `scratch/${c.owner}/` })).objects.length;
  const listing = await workspaceFor(env.WORKSPACES, AGENT, c.owner).list();
  const files = listing.ok ? listing.value.total : -1;
  return { rows, r2: r2 + scratch, files };
}

describe("the retention sweep on Workers Free's limits", () => {
  it("erases many expired anonymous conversations over several passes, each within Free's limits", async () => {
    const many = [
      ...(await Promise.all(Array.from({ length: 30 }, () => anonymousConversation(3, 40)))),
      ...(await Promise.all(Array.from({ length: 20 }, () => anonymousConversation(1, 40)))),
    ];
    // Kept: a conversation still in retention, one with a recent task beside its old ones, and a
    // user's old task (RETENTION_DAYS is 0 here: users' tasks are kept).
    const recent = await anonymousConversation(1, 5);
    const mixed = await anonymousConversation(2, 40);
    await indexRow(mixed.owner, mixed.contextId, 1);
    const user = { owner: `user-${crypto.randomUUID()}`, contextId: newContextId() };
    await indexRow(user.owner, user.contextId, 400);

    const free = platformEnv({ ...env, CF_PLAN: "free" });
    const passes: Array<SweepPass & { d1: number; subrequests: number }> = [];
    for (let i = 0; i < 100; i++) {
      const pass = await inInvocation("free", "sweep", async () => {
        const done = await sweepExpired(free);
        const spent = invocationSpent();
        return {
          ...done,
          d1: spent?.d1Queries ?? -1,
          subrequests: (spent?.services ?? 0) + (spent?.fetch ?? 0),
        };
      });
      passes.push(pass);
      if (!pass.more) break;
    }
    expect(passes.at(-1)?.more).toBe(false);
    // 50 conversations at 5 a pass: at least 10 passes, each well inside Free's limits (even if
    // Cloudflare counted calls to its services against the 50 external subrequests).
    expect(passes.length).toBeGreaterThanOrEqual(50 / ERASURES);
    for (const pass of passes) {
      expect(pass.d1).toBeLessThanOrEqual(PLAN_LIMITS.free.d1Queries);
      expect(pass.subrequests).toBeLessThanOrEqual(PLAN_LIMITS.free.fetch);
      expect(pass.swept).toBeLessThanOrEqual(2 * ROWS);
    }
    const erased = passes.reduce((n, p) => n + p.erased, 0);
    expect(erased).toBeGreaterThanOrEqual(many.length);
    for (const c of many) expect(await leftOf(c)).toEqual({ rows: 0, r2: 0, files: 0 });
    expect(await leftOf(recent)).toMatchObject({ rows: 1, files: 1 });
    expect(await leftOf(mixed)).toMatchObject({ rows: 1, files: 1 });
    expect((await leftOf(user)).rows).toBe(1);
  }, 180_000);

  it("erases before it forgets: a pass cut short by a limit leaves the rows of what it erased", async () => {
    const doomed = await Promise.all(Array.from({ length: 3 }, () => anonymousConversation(2, 40)));
    const free = platformEnv({ ...env, CF_PLAN: "free" });
    // An invocation that has spent nearly all it may call Cloudflare's services: the pass reads its
    // rows, starts erasing and is stopped by the limit part way.
    const cut = inInvocation("free", "sweep", async () => {
      for (let i = 0; i < PLAN_LIMITS.free.services - 4; i++)
        countSubrequest("service", "elsewhere");
      return sweepExpired(free);
    });
    await expect(cut).rejects.toThrow(/Too many subrequests by single Worker invocation/);
    // Whatever was erased still has its index rows: the next pass finds it and finishes.
    for (const c of doomed) expect((await leftOf(c)).rows).toBe(2);
    for (let more = true; more; )
      more = (await inInvocation("free", "sweep", () => sweepExpired(free))).more;
    for (const c of doomed) expect(await leftOf(c)).toEqual({ rows: 0, r2: 0, files: 0 });
    // The breaches asked for: the cut pass's calls in flight when the limit was reached.
    for (const breach of limitBreaches()) expect(breach).toMatch(/^Too many subrequests/);
    clearLimitBreaches();
  });

  it("finds expired rows through the expiry indexes, not by reading the whole table", async () => {
    const plan = async (sql: string) =>
      JSON.stringify(await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).all());
    const states = "state IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED')";
    expect(
      await plan(`SELECT id FROM tasks t WHERE ${states} AND updated_at < '2026-01-01' LIMIT 50`),
    ).toContain("tasks_by_expiry");
    expect(
      await plan(
        `SELECT id FROM tasks t WHERE ${states} AND updated_at < '2026-01-01' AND owner >= 'anon-' AND owner < 'anon.' LIMIT 50`,
      ),
    ).toContain("tasks_by_anonymous_expiry");
  });

  it("runs the passes left after the first from the sweep object's alarm", async () => {
    const stale = await Promise.all(
      Array.from({ length: ERASURES + 2 }, () => anonymousConversation(1, 40)),
    );
    const first = await sweepExpired(env);
    expect(first).toMatchObject({ erased: ERASURES, more: true });
    // The cron's pass asks the object for the next one; its alarm may fire on its own too.
    const sweeper = stubByName(env.RETENTION, "sweep");
    await sweeper.continueSweep();
    await runDurableObjectAlarm(sweeper);
    const left = await until(
      () => Promise.all(stale.map(leftOf)),
      (all) => all.every((c) => c.rows === 0 && c.r2 === 0 && c.files === 0),
    );
    expect(left).toHaveLength(stale.length);
  }, 120_000);
});
