/**
 * Limits and budgets at their boundaries, under concurrent requests: messages per minute per
 * user and per IP (429 with Retry-After), failed credentials per guessing address (an IPv6
 * address by its /64; never per credential, so no one can lock another's key out),
 * concurrent streams, and token budgets per day and per
 * task kept exactly by the user object (a task that would exceed one is rejected before the
 * model is called; a running task that reaches one completes with stopReason "budget").
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { setBudget } from "../../src/auth/users-store.ts";
import { loadConfig } from "../../src/config/config.ts";
import { userObject } from "../../src/users/limits.ts";
import { type WireTask as Task, userMessage } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser, postAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { until } from "../helpers/until.ts";

const send = (
  token: string | null,
  text: string,
  bindings: Env,
  headers: Record<string, string> = {},
  method = "SendMessage",
) => postAs(token, method, { message: userMessage(text) }, "/", bindings, headers);

describe("rate limits", () => {
  it("admits exactly N messages a minute per user, concurrent ones included; then 429", async () => {
    const limited = { ...closedEnv, RATE_MESSAGES_PER_MINUTE: "3" } as Env;
    const { token } = await newUser();
    const s = await scenario(Array.from({ length: 5 }, () => ({ text: "ok" })));
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) => send(token, `m${i} ${s.marker}`, limited)),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = responses.find((r) => r.status === 429) as Response;
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    // A leased place counts until a minute after its lease (users/admission-lease.ts).
    expect(Number(refused.headers.get("Retry-After"))).toBeLessThanOrEqual(
      60 + loadConfig(limited).limits.admissionLeaseMs / 1000,
    );
    expect(await refused.json()).toMatchObject({
      error: { code: -32000, message: expect.stringContaining("limit is 3 a minute") },
    });
    // Reads are not messages.
    const read = await postAs(token, "ListTasks", {}, "/", limited);
    expect(read.status).toBe(200);
  });

  it("limits unauthenticated callers per IP", async () => {
    const open = { ...env, RATE_ANONYMOUS_PER_MINUTE: "2" } as Env;
    const s = await scenario(Array.from({ length: 4 }, () => ({ text: "ok" })));
    const ip = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
    const from = (address: string, i: number) =>
      send(null, `anon ${i} ${s.marker}`, open, { "CF-Connecting-IP": address });
    expect((await from(ip, 1)).status).toBe(200);
    expect((await from(ip, 2)).status).toBe(200);
    expect((await from(ip, 3)).status).toBe(429);
    expect((await from("198.51.100.7", 4)).status).toBe(200);
  });

  it("limits unauthenticated IPv6 callers per /64, not per address", async () => {
    const open = { ...env, RATE_ANONYMOUS_PER_MINUTE: "2" } as Env;
    const s = await scenario(Array.from({ length: 4 }, () => ({ text: "ok" })));
    const hex = () => Math.floor(Math.random() * 0xffff).toString(16);
    const network = `2001:db8:${hex()}:${hex()}`;
    const from = (address: string, i: number) =>
      send(null, `v6 ${i} ${s.marker}`, open, { "CF-Connecting-IP": address });
    expect((await from(`${network}::1`, 1)).status).toBe(200);
    expect((await from(`${network}:0:0:0:2`, 2)).status).toBe(200);
    expect((await from(`${network}:${hex()}:${hex()}:${hex()}:${hex()}`, 3)).status).toBe(429);
    expect((await from(`2001:db8:${hex()}:${hex()}::1`, 4)).status).toBe(200);
  });

  it("limits concurrent streams; a closed stream frees its place", async () => {
    const limited = { ...closedEnv, MAX_CONCURRENT_STREAMS: "2" } as Env;
    const { token } = await newUser();
    const slow = () => ({ text: "s".repeat(20), chunkSize: 1, delayMs: 300 });
    const s = await scenario([slow(), slow(), slow(), slow()]);
    const first = await send(token, `a ${s.marker}`, limited, {}, "SendStreamingMessage");
    const second = await send(token, `b ${s.marker}`, limited, {}, "SendStreamingMessage");
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await send(token, `c ${s.marker}`, limited, {}, "SendStreamingMessage");
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({
      error: { message: expect.stringContaining("Too many open streams") },
    });
    await first.body?.cancel();
    // The lease is given back once the canceled stream's end reaches the user object.
    const fourth = await until(
      async () => {
        const response = await send(token, `d ${s.marker}`, limited, {}, "SendStreamingMessage");
        await response.body?.cancel();
        return response.status;
      },
      (status) => status !== 429,
    );
    expect(fourth).toBe(200);
    await second.body?.cancel();
  });
});

/** What a lease call asks: a rate, extra places, a stream's slot (and a spare). */
const ask = (perMinute: number, extra = 0, stream?: { max: number; spare: boolean }) => ({
  perMinute,
  extra,
  ttlMs: 20_000,
  ...(stream ? { stream: { ...stream, leaseMs: 60_000 } } : {}),
});

describe("one lease call", () => {
  it("admits a message and its stream's slot together; refused on either, counts nothing", async () => {
    const counters = userObject(env, `user:lease-${crypto.randomUUID()}`);
    const first = await counters.lease(crypto.randomUUID(), ask(2, 0, { max: 1, spare: true }));
    // No spare: the one slot is the request's.
    expect(first).toMatchObject({ ok: true, places: 1, slot: expect.any(String) });
    expect(first).not.toHaveProperty("spare");
    // No room for a second stream: refused, and its message not counted...
    expect(await counters.lease(crypto.randomUUID(), ask(2, 0, { max: 1, spare: false }))).toEqual({
      ok: false,
      streams: 1,
    });
    // ...so one more message fits the rate of 2, and then none.
    expect(await counters.lease(crypto.randomUUID(), ask(2))).toMatchObject({
      ok: true,
      places: 1,
    });
    expect(await counters.lease(crypto.randomUUID(), ask(2))).toMatchObject({
      ok: false,
      retryAfterSeconds: expect.any(Number),
    });
    // A stream without a rate (0) takes the slot its predecessor gave back.
    await counters.closeStream((first as { slot: string }).slot);
    expect(
      await counters.lease(crypto.randomUUID(), ask(0, 0, { max: 1, spare: false })),
    ).toMatchObject({ ok: true, places: 0 });
  });

  it("leases extra places and a spare slot, never past the limits", async () => {
    const counters = userObject(env, `user:lease-${crypto.randomUUID()}`);
    const first = await counters.lease(crypto.randomUUID(), ask(5, 3, { max: 3, spare: true }));
    expect(first).toMatchObject({ ok: true, places: 4, spare: expect.any(String) });
    // One place is left of 5, whatever is asked; two slots are held of 3.
    const second = await counters.lease(crypto.randomUUID(), ask(5, 3, { max: 3, spare: true }));
    expect(second).toMatchObject({ ok: true, places: 1 });
    expect(second).not.toHaveProperty("spare");
    expect(await counters.lease(crypto.randomUUID(), ask(5))).toMatchObject({ ok: false });
    expect(await counters.lease(crypto.randomUUID(), ask(0, 0, { max: 3, spare: false }))).toEqual({
      ok: false,
      streams: 3,
    });
  });

  it("corrects an ended lease's row to the places it used, dated its last use", async () => {
    const counters = userObject(env, `user:lease-${crypto.randomUUID()}`);
    const call = crypto.randomUUID();
    expect(await counters.lease(call, ask(3, 2))).toMatchObject({ ok: true, places: 3 });
    expect(await counters.lease(crypto.randomUUID(), ask(3))).toMatchObject({ ok: false });
    // The isolate used one of its three places: two come back with its next call.
    const lastAt = Date.now() - 30_000;
    const next = await counters.lease(crypto.randomUUID(), {
      ...ask(3, 5),
      ended: [{ call, used: 1, lastAt }],
    });
    expect(next).toMatchObject({ ok: true, places: 2 });
    const row = await runInDurableObject(counters, (_object, state) =>
      state.storage.sql
        .exec<{ at: number; n: number }>("SELECT at, n FROM admissions WHERE call = ?", call)
        .one(),
    );
    expect(row).toEqual({ at: lastAt, n: 1 });
  });

  it("tells when a place frees, counting a leased place until a minute after its lease", async () => {
    const counters = userObject(env, `user:lease-${crypto.randomUUID()}`);
    expect(await counters.lease(crypto.randomUUID(), ask(1))).toMatchObject({ ok: true });
    const refused = await counters.lease(crypto.randomUUID(), ask(1));
    expect(refused).toMatchObject({ ok: false });
    const wait = (refused as { retryAfterSeconds: number }).retryAfterSeconds;
    expect(wait).toBeGreaterThan(60);
    expect(wait).toBeLessThanOrEqual(80);
  });
});

describe("an edge of the previous version during a rolling deploy", () => {
  it("is admitted by admit as lease admits, with no places leased ahead", async () => {
    const counters = userObject(env, `user:admit-${crypto.randomUUID()}`);
    const stream = { max: 1, leaseMs: 60_000 };
    const first = await counters.admit(2, crypto.randomUUID(), stream);
    expect(first).toEqual({ ok: true, lease: expect.any(String) });
    expect(await counters.admit(2, crypto.randomUUID(), stream)).toEqual({ ok: false, streams: 1 });
    expect(await counters.admit(2)).toEqual({ ok: true });
    expect(await counters.admit(2)).toMatchObject({ ok: false, retryAfterSeconds: 60 });
  });
});

describe("a lease's idempotency key", () => {
  it("is kept in the rows it wrote: its retry answers alike and counts nothing more", async () => {
    const counters = userObject(env, `user:lease-key-${crypto.randomUUID()}`);
    const key = crypto.randomUUID();
    const streamed = ask(3, 1, { max: 3, spare: true });
    const first = await counters.lease(key, streamed);
    expect(first).toMatchObject({ ok: true, places: 2, slot: key, spare: `${key}:spare` });
    // The answer was lost and the call retried: the same lease, no more places or slots.
    expect(await counters.lease(key, streamed)).toEqual(first);
    const plain = crypto.randomUUID();
    expect(await counters.lease(plain, ask(3))).toMatchObject({ ok: true, places: 1 });
    expect(await counters.lease(plain, ask(3))).toMatchObject({ ok: true, places: 1 });
    // Three places counted (of 3 a minute), two slots held (of 3).
    expect(await counters.lease(crypto.randomUUID(), ask(3))).toMatchObject({ ok: false });
    expect(
      await counters.lease(crypto.randomUUID(), ask(0, 0, { max: 3, spare: false })),
    ).toMatchObject({ ok: true });
    expect(await counters.lease(crypto.randomUUID(), ask(0, 0, { max: 3, spare: false }))).toEqual({
      ok: false,
      streams: 3,
    });
  });
});

describe("limits count what the router served", () => {
  /** A REST call as a user, at a path whose letters may be percent-encoded. */
  const restAs = (token: string, path: string, body: unknown, bindings: Env) =>
    callWorker(
      path,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "A2A-Version": "1.0",
          Authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(body),
      },
      bindings,
    );

  it("counts a percent-encoded message:send as a message (messag%65:send)", async () => {
    const limited = { ...closedEnv, RATE_MESSAGES_PER_MINUTE: "3" } as Env;
    const { token } = await newUser();
    const s = await scenario(Array.from({ length: 5 }, () => ({ text: "ok" })));
    const statuses: number[] = [];
    for (const [i, path] of [
      "/agents/writer/messag%65:send",
      "/agents/%77riter/message:send",
      "/messag%65:send",
      "/agents/writer/message:send",
      "/agents/writer/message:send",
    ].entries()) {
      const response = await restAs(
        token,
        path,
        { message: userMessage(`e${i} ${s.marker}`) },
        limited,
      );
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it("answers a percent-encoded JSON-RPC path's errors as JSON-RPC (/%61gents/writer/)", async () => {
    const refused = await postAs("a2a_not-a-token", "ListTasks", {}, "/%61gents/writer/");
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000 },
    });
  });

  it("holds a stream lease for a percent-encoded message:stream (message:strea%6D)", async () => {
    const limited = { ...closedEnv, MAX_CONCURRENT_STREAMS: "1" } as Env;
    const { token } = await newUser();
    const slow = () => ({ text: "s".repeat(20), chunkSize: 1, delayMs: 300 });
    const s = await scenario([slow(), slow()]);
    const first = await restAs(
      token,
      "/agents/writer/message:strea%6D",
      { message: userMessage(`a ${s.marker}`) },
      limited,
    );
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("text/event-stream");
    const second = await restAs(
      token,
      "/agents/writer/message:stream",
      { message: userMessage(`b ${s.marker}`) },
      limited,
    );
    expect(second.status).toBe(429);
    await first.body?.cancel();
    await second.body?.cancel();
  });
});

describe("failed credentials", () => {
  const throttled = { ...closedEnv, AUTH_FAILURES_PER_MINUTE: "3" } as Env;
  const unique = () => crypto.randomUUID().replaceAll("-", "");
  const list = (token: string, ip: string, path = "/") =>
    callWorker(
      path,
      {
        method: path === "/" ? "POST" : "GET",
        headers: {
          "content-type": "application/json",
          "A2A-Version": "1.0",
          Authorization: `Bearer ${token}`,
          "CF-Connecting-IP": ip,
        },
        ...(path === "/"
          ? { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }) }
          : {}),
      },
      throttled,
    );

  it("checks exactly N a minute per IP, concurrent guesses included; then 429 before any lookup", async () => {
    const ip = `auth-ip-${unique()}`;
    const guesses = await Promise.all(
      Array.from({ length: 6 }, () => list(`a2a_${unique()}${unique()}`, ip)),
    );
    expect(guesses.map((r) => r.status).sort()).toEqual([401, 401, 401, 429, 429, 429]);
    const refused = guesses.find((r) => r.status === 429) as Response;
    const wait = Number(refused.headers.get("Retry-After"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: `Too many failed credentials: the limit is 3 a minute. Retry after ${wait} s.`,
      },
    });
    const rest = await list(`a2a_${unique()}`, ip, "/tasks/x");
    expect(rest.status).toBe(429);
    expect(((await rest.json()) as { error: { status: string } }).error.status).toBe(
      "RESOURCE_EXHAUSTED",
    );
    // The IP's own good credential waits too (it could be the guess that hits); elsewhere it works.
    const { token } = await newUser();
    expect((await list(token, ip)).status).toBe(429);
    expect((await list(token, `auth-ip-${unique()}`)).status).toBe(200);
  });

  it("never locks a credential out for guesses at its prefix from other addresses", async () => {
    const { token } = await newUser();
    // Guesses that share the real token's first characters, each from an address of its own.
    const prefix = token.slice(0, 12);
    for (let i = 0; i < 20; i++)
      expect((await list(`${prefix}${unique()}`, `203.0.113.${i + 1}`)).status).toBe(401);
    expect((await list(token, `auth-ip-${unique()}`)).status).toBe(200);
    // The same for a static key: guesses at its first characters never hold it back.
    for (let i = 0; i < 5; i++)
      expect((await list(`test-adm${unique()}`, `auth-ip-${unique()}`)).status).toBe(401);
    const admin = await callWorker(
      "/api/admin/users",
      {
        headers: {
          Authorization: "Bearer test-admin-key",
          "CF-Connecting-IP": `auth-ip-${unique()}`,
        },
      },
      throttled,
    );
    expect(admin.status).toBe(200);
  });

  it("counts an IPv6 guesser by its /64: new addresses in one network share one count", async () => {
    const net = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    const from = (host: number) => `${net}:${host.toString(16)}::1`;
    for (let i = 0; i < 3; i++)
      expect((await list(`a2a_${unique()}`, from(i + 1))).status).toBe(401);
    expect((await list(`a2a_${unique()}`, from(9))).status).toBe(429);
    // Another network is another guesser.
    const { token } = await newUser();
    expect((await list(token, `2001:db8:ffff:${unique().slice(0, 4)}::1`)).status).toBe(200);
  });

  it("forgets a counter's minute with its alarm, erasing an object left with no counts", async () => {
    const counter = userObject(env, `auth:ip:${unique()}`);
    expect((await counter.attempt(3)).ok).toBe(true);
    await runInDurableObject(counter, (_instance, state) => {
      state.storage.sql.exec("UPDATE auth_attempts SET at = at - 61000");
    });
    expect(await runDurableObjectAlarm(counter)).toBe(true);
    const rows = await runInDurableObject(counter, (_instance, state) => {
      const sql = state.storage.sql;
      const tables = sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' AND name != 'schema_version'",
        )
        .toArray();
      return tables.reduce(
        (n, t) => n + sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM "${t.name}"`).one().n,
        0,
      );
    });
    expect(rows).toBe(0);
    // Nothing left to sweep; counting again starts from an empty minute.
    expect(await runDurableObjectAlarm(counter)).toBe(false);
    expect((await counter.attempt(1)).ok).toBe(true);
    expect((await counter.attempt(1)).ok).toBe(false);
  });
});

describe("token budgets", () => {
  it("rejects a task before the model is called when the day's budget cannot cover it", async () => {
    const { id, token } = await newUser();
    await setBudget(env.DB, id, { dayTokens: 1_000 });
    const s = await scenario([{ text: "never said" }]);
    const response = await send(token, `expensive ${s.marker}`, closedEnv);
    const task = ((await response.json()) as { result: { task: Task } }).result.task;
    expect(task.status.state).toBe("TASK_STATE_REJECTED");
    expect(task.status.message?.parts[0]?.text).toMatch(
      /^The daily token budget is spent \(0 of 1000/,
    );
    expect(task.metadata?.stopReason).toBe("budget");
    const requests = await (
      await fetch(`${env.FAKE_MODEL_URL}/_scripted/requests?scenario=${s.id}`)
    ).json();
    expect((requests as { requests: unknown[] }).requests).toHaveLength(0);
  });

  it("stops a running task that reaches its per-task budget as completed", async () => {
    const { id, token } = await newUser();
    // The first call's reservation (its prompt of about 7k tokens as a cache write, 1.25 each,
    // plus maxTokens 8192 of output, 5 each: about 50k) fits; after a turn of 30k it does not.
    await setBudget(env.DB, id, { taskTokens: 60_000 });
    const s = await scenario([
      {
        text: "first part",
        toolUses: [
          { name: "write_todos", input: { todos: [{ content: "a", status: "in_progress" }] } },
        ],
        usage: { input_tokens: 30_000 },
      },
      { text: "never reached" },
    ]);
    const response = await send(token, `long ${s.marker}`, closedEnv);
    const task = ((await response.json()) as { result: { task: Task } }).result.task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.metadata?.stopReason).toBe("budget");
    expect(task.status.message?.parts[0]?.text).toMatch(/^This task reached its token budget/);
  });

  it("never lets concurrent tasks overspend a day's budget", async () => {
    const { id, token } = await newUser();
    // One reservation (the request's estimate, about 7k, at a cache write's 1.25, plus maxTokens,
    // 8192, at output's 5: about 50k) fits; two do not.
    await setBudget(env.DB, id, { dayTokens: 60_000 });
    const s = await scenario(
      Array.from({ length: 4 }, () => ({ text: "slow answer", chunkSize: 1, delayMs: 100 })),
    );
    const results = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const response = await send(token, `race ${i} ${s.marker}`, closedEnv);
        return ((await response.json()) as { result: { task: Task } }).result.task.status.state;
      }),
    );
    expect(results.filter((state) => state === "TASK_STATE_COMPLETED")).toHaveLength(1);
    expect(results.filter((state) => state === "TASK_STATE_REJECTED")).toHaveLength(3);
  });
});

describe("a settlement", () => {
  it("counts once however often it is retried, with or without its reservation", async () => {
    const counters = userObject(env, `user:settle-${crypto.randomUUID()}`);
    expect(await counters.reserve("call-1", 500, 10_000, 0)).toEqual({ ok: true });
    await counters.settle("call-1", 120);
    await counters.settle("call-1", 120); // its answer was lost: retried
    // A call no reservation was made for (no budget applied then, or it expired) counts too, once.
    await counters.settle("call-2", 30);
    await counters.settle("call-2", 30);
    expect((await counters.usage()).dayTokens).toBe(150);
    // The settled reservation holds nothing: the day's 10,000 less the 150 spent are free.
    expect(await counters.reserve("call-3", 9_850, 10_000, 0)).toEqual({ ok: true });
  });

  it("counts a month as the sum of its days, writing only the day's row", async () => {
    const counters = userObject(env, `user:month-${crypto.randomUUID()}`);
    await counters.settle("today", 40);
    const { day, month } = await counters.usage();
    const other = `${month}-${day.endsWith("-01") ? "02" : "01"}`; // another day of the month
    await runInDurableObject(counters, (_object, state) => {
      const sql = state.storage.sql;
      const periods = () => sql.exec<{ period: string }>("SELECT period FROM spent").toArray();
      expect(periods()).toEqual([{ period: `d:${day}` }]);
      // Another day of the month, and a month's row as objects stored before kept (ignored).
      sql.exec(
        "INSERT INTO spent (period, tokens) VALUES (?, 60), (?, 999)",
        `d:${other}`,
        `m:${month}`,
      );
    });
    const usage = await counters.usage();
    expect(usage.dayTokens).toBe(40);
    expect(usage.monthTokens).toBe(100);
  });
});
