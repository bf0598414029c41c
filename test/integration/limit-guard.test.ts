/**
 * The local limit guard (CF_PLAN, src/platform/limit-guard.ts): what production refuses is refused
 * here too, with production's error and the limit named. Values and rows over 2,000,000 bytes in
 * an object's SQLite and in D1; more than 100 bound parameters; subrequests and D1 queries past a
 * plan's limits in one invocation, counted afresh in the next. Each breach is one the test asks
 * for, so it forgets them at the end (test/setup.ts fails a test on any other).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { platformEnv } from "../../src/platform/bindings.ts";
import { MAX_SQL_VALUE_BYTES } from "../../src/platform/cloudflare-limits.ts";
import {
  clearLimitBreaches,
  inInvocation,
  invocationSpent,
  limitBreaches,
} from "../../src/platform/invocation-budget.ts";
import { guardedEnv } from "../../src/platform/limit-guard.ts";
import { stubByName } from "../../src/platform/object-stub.ts";
import { workspaceFor } from "../../src/workspace/client.ts";

afterEach(() => clearLimitBreaches());

const guarded = platformEnv(env);

describe("the local limit guard", () => {
  it("is off without CF_PLAN: the bindings are the runtime's own", () => {
    const off = { ...env, CF_PLAN: "" };
    expect(guardedEnv(off)).toBe(off);
    expect(guarded.DB).not.toBe(env.DB);
  });

  it("refuses a value over 2,000,000 bytes in an object's SQLite as production does, and takes one just under it", async () => {
    const stub = stubByName(env.TASKS, `guard-probe-${crypto.randomUUID()}`);
    const outcome = await runInDurableObject(stub, (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE TABLE IF NOT EXISTS guard_probe (k TEXT PRIMARY KEY, v TEXT)");
      sql.exec(
        "INSERT INTO guard_probe (k, v) VALUES (?, ?)",
        "at",
        "x".repeat(MAX_SQL_VALUE_BYTES - 1_000),
      );
      let error: unknown = null;
      try {
        sql.exec("INSERT INTO guard_probe (k, v) VALUES (?, ?)", "over", "é".repeat(1_000_001));
      } catch (e) {
        error = e;
      }
      const rows = sql.exec("SELECT k FROM guard_probe ORDER BY k").toArray();
      return { error: String(error), rows };
    });
    expect(outcome.error).toMatch(
      /^Error: string or blob too big: SQLITE_TOOBIG \(local limit guard: a value of 2000002 bytes/,
    );
    expect(outcome.error).toContain('"Maximum string, BLOB or table row size"');
    expect(outcome.rows).toEqual([{ k: "at" }]);
    expect(limitBreaches()).toHaveLength(1);
  });

  it("refuses a row whose values add up to more than 2,000,000 bytes", async () => {
    const stub = stubByName(env.TASKS, `guard-probe-${crypto.randomUUID()}`);
    const error = await runInDurableObject(stub, (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE TABLE IF NOT EXISTS guard_row (a TEXT, b TEXT)");
      const half = "y".repeat(1_200_000);
      // The same value bound twice (an upsert's insert and update) is one value of the row.
      sql.exec("INSERT INTO guard_row (a, b) VALUES (?, ?)", half, half);
      try {
        sql.exec("INSERT INTO guard_row (a, b) VALUES (?, ?)", half, `${half}z`);
        return "written";
      } catch (e) {
        return String(e);
      }
    });
    expect(error).toMatch(/SQLITE_TOOBIG \(local limit guard: a row of 2400001 bytes/);
  });

  it("refuses a value over 2,000,000 bytes and more than 100 parameters in D1, with D1's error", async () => {
    await env.DB.exec("CREATE TABLE IF NOT EXISTS guard_d1 (v TEXT)");
    const big = guarded.DB.prepare("INSERT INTO guard_d1 (v) VALUES (?)").bind(
      "z".repeat(2_000_001),
    );
    await expect(big.run()).rejects.toThrow(
      /^D1_ERROR: string or blob too big: SQLITE_TOOBIG \(local limit guard/,
    );
    await expect(guarded.DB.batch([big])).rejects.toThrow(/SQLITE_TOOBIG/);
    const ids = Array.from({ length: 101 }, (_, i) => i);
    const many = guarded.DB.prepare(
      `SELECT 1 FROM guard_d1 WHERE rowid IN (${ids.map(() => "?").join(", ")})`,
    ).bind(...ids);
    await expect(many.all()).rejects.toThrow(
      /too many SQL variables.*"Maximum bound parameters per query"\) is 100/,
    );
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM guard_d1").first("n");
    expect(left).toBe(0);
  });

  it("counts D1 queries per invocation: the 51st on Workers Free fails, the next invocation starts again", async () => {
    const query = () => guarded.DB.prepare("SELECT 1 AS one").first("one");
    const run = () =>
      inInvocation("free", "probe", async () => {
        for (let i = 0; i < 50; i++) await query();
        expect(invocationSpent()).toMatchObject({ d1Queries: 50, services: 50, fetch: 0 });
        return query();
      });
    await expect(run()).rejects.toThrow(
      /^D1_ERROR: Too many API requests by single worker invocation\. \(local limit guard: 51 D1 queries .* over Workers Free's 50 per invocation; CF_PLAN=free\)/,
    );
    await expect(run()).rejects.toThrow(/51 D1 queries/);
    expect(await inInvocation("paid", "probe", () => query())).toBe(1);
    expect(limitBreaches()).toHaveLength(2);
  });

  it("counts fetch subrequests per invocation: the 51st on Workers Free fails", async () => {
    await inInvocation("free", "probe", async () => {
      for (let i = 0; i < 50; i++) await (await fetch(`${env.FAKE_MODEL_URL}/`)).arrayBuffer();
      await expect(fetch(`${env.FAKE_MODEL_URL}/`)).rejects.toThrow(
        /^Too many subrequests by single Worker invocation\. \(local limit guard: 51 fetch subrequests/,
      );
    });
    expect(limitBreaches()).toHaveLength(1);
  });

  it("counts a call to another object in the caller, and what the callee does in its own invocation", async () => {
    const owner = `guard-${crypto.randomUUID()}`;
    const spent = await inInvocation("free", "probe", async () => {
      // The workspace puts the file's content in R2: its subrequest, not the caller's.
      const written = await workspaceFor(guarded.WORKSPACES, "writer", owner).write("a.txt", "hi", {
        taskId: "guard-probe",
      });
      expect(written.ok).toBe(true);
      return invocationSpent();
    });
    expect(spent).toMatchObject({ services: 1, d1Queries: 0, fetch: 0 });
    expect(await env.FILES.list({ prefix: "" }).then((l) => l.objects.length)).toBeGreaterThan(0);
    expect(limitBreaches()).toEqual([]);
  });
});
