/**
 * Events in: webhooks that start tasks (GitHub and generic signatures, the replay window,
 * redelivery, ping and event filters, a push target) and scheduled runs (firing on matching
 * minutes only, once per tick under concurrent triggers, the schedules API).
 */
import {
  createExecutionContext,
  createScheduledController,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import { signGeneric, signGithub } from "../../src/triggers/signatures.ts";
import worker from "../../src/worker.ts";
import { errorBody, type WireTask as Task } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser, rpcAs } from "../helpers/as-user.ts";
import { until } from "../helpers/until.ts";
import { deliver, githubPushHook, withWebhooks } from "../helpers/webhooks.ts";

const SECRET = "whsec-test";

async function setup() {
  const owner = await newUser();
  const hook = `gh-${crypto.randomUUID().slice(0, 6)}`;
  const generic = `gen-${crypto.randomUUID().slice(0, 6)}`;
  const pushHook = `wh-${crypto.randomUUID().slice(0, 8)}`;
  const bindings = withWebhooks(SECRET, {
    [hook]: githubPushHook(
      owner.id,
      "[[reply:noted]] {{$event}} to {{repository.full_name}} by {{pusher.name}}: {{head_commit.message}}",
      { push: { url: `${env.FAKE_PUSH_URL}/hooks/${pushHook}`, token: "from-webhook" } },
    ),
    [generic]: {
      agent: "writer",
      owner: owner.id,
      secret: "HOOK_SECRET",
      signature: "generic",
      prompt: "[[reply:ticket seen]] Ticket {{ticket.id}}: {{ticket.title}}",
    },
    "no-secret": {
      agent: "assistant",
      owner: owner.id,
      secret: "MISSING_SECRET",
      prompt: "x",
    },
  });
  return { owner, hook, generic, pushHook, bindings };
}

const pushPayload = {
  ref: "refs/heads/main",
  repository: { full_name: "acme/widgets" },
  pusher: { name: "octocat" },
  head_commit: { message: "Fix the flux capacitor" },
};

/** Polls GetTask as `token` (at `path`, with `bindings`) until the task completed. */
const completed = (token: string | null, id: string, path = "/", bindings = closedEnv) =>
  until(
    async () => (await rpcAs<Task>(token, "GetTask", { id }, path, bindings)).body.result as Task,
    (t) => t?.status.state === "TASK_STATE_COMPLETED",
  );

describe("webhooks", () => {
  it("GitHub: a signed push starts one task; a redelivery gets the same task; bad signatures start none", async () => {
    const { owner, hook, pushHook, bindings } = await setup();
    const body = JSON.stringify(pushPayload);
    const delivery = crypto.randomUUID();
    const headers = {
      "X-GitHub-Event": "push",
      "X-GitHub-Delivery": delivery,
      "X-Hub-Signature-256": await signGithub(SECRET, body),
    };
    const first = await deliver(bindings, hook, body, headers);
    expect(first.status).toBe(202);
    const started = (await first.json()) as {
      taskId: string;
      url: string;
      redelivery: boolean;
      state: string;
    };
    expect(started).toMatchObject({ redelivery: false });
    expect(started.url).toBe(`http://harness.test/agents/assistant/tasks/${started.taskId}`);

    const again = await deliver(bindings, hook, body, headers);
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ taskId: started.taskId, redelivery: true });

    // The task is the owner's, with the prompt rendered from the payload.
    const task = await completed(owner.token, started.taskId);
    expect(task.history?.[0]?.parts[0]?.text).toBe(
      "[[reply:noted]] push to acme/widgets by octocat: Fix the flux capacitor",
    );
    expect(task.metadata?.request).toMatchObject({
      trigger: { kind: "webhook", name: hook, deliveryId: delivery, event: "push" },
    });
    // Its push target heard the end.
    const pushed = await until(
      async () =>
        (await (await fetch(`${env.FAKE_PUSH_URL}/received/${pushHook}`)).json()) as Array<{
          body: string;
          headers: Record<string, string>;
        }>,
      (r) => r.some((x) => x.body.includes("TASK_STATE_COMPLETED")),
    );
    expect(pushed.at(-1)?.headers["x-a2a-notification-token"]).toBe("from-webhook");

    // Bad, missing, or made with another secret: 401 and no task.
    const before = await rpcAs<{ tasks: unknown[] }>(owner.token, "ListTasks", {});
    const other = JSON.stringify({ ...pushPayload, ref: "refs/heads/dev" });
    for (const signature of [
      undefined,
      "sha256=00",
      await signGithub("wrong-secret", other),
      await signGithub(SECRET, body), // signs a different body
    ]) {
      const refused = await deliver(bindings, hook, other, {
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": crypto.randomUUID(),
        ...(signature ? { "X-Hub-Signature-256": signature } : {}),
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual(
        errorBody(401, "UNAUTHENTICATED", "Unauthorized: the signature does not match"),
      );
    }
    const after = await rpcAs<{ tasks: unknown[] }>(owner.token, "ListTasks", {});
    expect(after.body.result?.tasks.length).toBe(before.body.result?.tasks.length);

    // ping and events outside the list are acknowledged without a task.
    const ping = await deliver(bindings, hook, "{}", {
      "X-GitHub-Event": "ping",
      "X-Hub-Signature-256": await signGithub(SECRET, "{}"),
    });
    expect(await ping.json()).toMatchObject({ ok: true, pong: true });
    const issue = await deliver(bindings, hook, "{}", {
      "X-GitHub-Event": "issues",
      "X-Hub-Signature-256": await signGithub(SECRET, "{}"),
    });
    expect(issue.status).toBe(200);
    expect(await issue.json()).toMatchObject({ ignored: expect.stringContaining("issues") });
  });

  it("generic: X-Signature over timestamp and body, inside the replay window; the signed request names the event", async () => {
    const { owner, generic, bindings } = await setup();
    const body = JSON.stringify({ ticket: { id: 42, title: "Printer on fire" } });
    const send = async (timestamp: number, signature: string, extra: Record<string, string> = {}) =>
      deliver(bindings, generic, body, {
        "X-Timestamp": String(timestamp),
        "X-Signature": signature,
        ...extra,
      });
    const now = Math.floor(Date.now() / 1000);
    const signature = await signGeneric(SECRET, body, now);
    const ok = await send(now, signature);
    expect(ok.status).toBe(202);
    const { taskId } = (await ok.json()) as { taskId: string };
    // The same signed request replayed, with or without new unsigned Idempotency-Keys: one task.
    const replays: Array<Record<string, string>> = [
      {},
      { "Idempotency-Key": "key-a" },
      { "Idempotency-Key": "key-b" },
    ];
    for (const extra of replays) {
      const replay = await send(now, signature, extra);
      expect(await replay.json()).toMatchObject({ taskId, redelivery: true });
    }
    // The same body signed at another time is another event (a sender's retry resends the request
    // as it was signed).
    const later = (await (
      await send(now + 1, await signGeneric(SECRET, body, now + 1))
    ).json()) as {
      taskId: string;
      redelivery: boolean;
    };
    expect(later).toMatchObject({ redelivery: false });
    expect(later.taskId).not.toBe(taskId);
    // Outside the 300 s window (old or future; 10 s clear of its edge), signed correctly: 401.
    for (const t of [now - 310, now + 310]) {
      const stale = await send(t, await signGeneric(SECRET, body, t));
      expect(stale.status).toBe(401);
    }
    // Signed for another timestamp than the one sent: 401.
    expect((await send(now, await signGeneric(SECRET, body, now - 5))).status).toBe(401);
    const task = await completed(owner.token, taskId, "/agents/writer/");
    expect(task.history?.[0]?.parts[0]?.text).toBe(
      "[[reply:ticket seen]] Ticket 42: Printer on fire",
    );
    const listed = await rpcAs<{ tasks: Task[] }>(owner.token, "ListTasks", {}, "/agents/writer/");
    expect(listed.body.result?.tasks.map((t) => t.id).sort()).toEqual(
      [taskId, later.taskId].sort(),
    );
  });

  it("GitHub: a signed delivery replayed with new unsigned headers starts no second task; no event name is no event", async () => {
    const { owner, hook, bindings } = await setup();
    const body = JSON.stringify({ ...pushPayload, after: crypto.randomUUID() });
    const signature = await signGithub(SECRET, body);
    const signed = (headers: Record<string, string>) =>
      deliver(bindings, hook, body, { "X-Hub-Signature-256": signature, ...headers });
    const first = (await (
      await signed({ "X-GitHub-Event": "push", "X-GitHub-Delivery": crypto.randomUUID() })
    ).json()) as { taskId: string; redelivery: boolean };
    expect(first.redelivery).toBe(false);
    // GitHub's signature covers the body only (no timestamp): the delivery id and the event name
    // are unsigned, so neither makes a replay a new event.
    const replays: Array<Record<string, string>> = [
      { "X-GitHub-Event": "push", "X-GitHub-Delivery": crypto.randomUUID() },
      { "X-GitHub-Event": "push", "Idempotency-Key": "fresh" },
      { "X-GitHub-Event": "push" },
    ];
    for (const headers of replays) {
      const replay = await signed(headers);
      expect(replay.status).toBe(202);
      expect(await replay.json()).toMatchObject({ taskId: first.taskId, redelivery: true });
    }
    // Without X-GitHub-Event, a webhook with `events` starts nothing.
    const other = JSON.stringify({ ...pushPayload, after: crypto.randomUUID() });
    const unnamed = await deliver(bindings, hook, other, {
      "X-Hub-Signature-256": await signGithub(SECRET, other),
    });
    expect(unnamed.status).toBe(200);
    expect(await unnamed.json()).toMatchObject({
      ignored: expect.stringContaining("no X-GitHub-Event"),
    });
    await until(
      async () => (await rpcAs<{ tasks: Task[] }>(owner.token, "ListTasks", {})).body.result,
      (r) => r?.tasks.length === 1,
    );
  });

  it("an anonymous owner: each event its own anonymous conversation, reachable by the id the sender got", async () => {
    const { generic, bindings } = await setup();
    const hooks = JSON.parse(bindings.WEBHOOKS as string) as Record<
      string,
      Record<string, unknown>
    >;
    const open = {
      ...bindings,
      ALLOW_ANONYMOUS: "true",
      WEBHOOKS: JSON.stringify({ [generic]: { ...hooks[generic], owner: "anonymous" } }),
    } as Env;
    const start = async (ticket: number) => {
      const body = JSON.stringify({ ticket: { id: ticket, title: "Anonymous" } });
      const now = Math.floor(Date.now() / 1000);
      const response = await deliver(open, generic, body, {
        "X-Timestamp": String(now),
        "X-Signature": await signGeneric(SECRET, body, now),
      });
      expect(response.status).toBe(202);
      return (await response.json()) as { taskId: string; contextId: string };
    };
    const a = await start(1);
    const b = await start(2);
    expect(a.contextId).not.toBe(b.contextId);
    expect(a.contextId).toMatch(/^[0-9a-f]{64}$/);
    const task = await completed(null, a.taskId, "/agents/writer/", open);
    expect(task.metadata?.owner).toBe(await anonymousOwner(a.contextId));
    expect(task.metadata?.owner).not.toBe(
      (
        (await rpcAs<Task>(null, "GetTask", { id: b.taskId }, "/agents/writer/", open)).body
          .result as Task
      ).metadata?.owner,
    );
  });

  it("answers an unknown webhook 404 and one without its secret 503", async () => {
    const { bindings } = await setup();
    const unknown = await deliver(bindings, "nope", "{}", {});
    expect(unknown.status).toBe(404);
    const noSecret = await deliver(bindings, "no-secret", "{}", {});
    expect(noSecret.status).toBe(503);
    expect(await noSecret.text()).toContain("its secret is not configured");
  });

  it("answers 503 naming the push target when the policy refuses the webhook's own target", async () => {
    const { owner } = await setup();
    const name = `gh-private-${crypto.randomUUID().slice(0, 6)}`;
    const bindings = {
      ...withWebhooks(SECRET, {
        [name]: githubPushHook(owner.id, "[[reply:noted]] x", {
          push: { url: "http://10.1.2.3/hooks/private" },
        }),
      }),
      WEB_FETCH_ALLOW_PRIVATE: "false",
    } as Env;
    const body = JSON.stringify({ ...pushPayload, after: crypto.randomUUID() });
    const response = await deliver(bindings, name, body, {
      "X-GitHub-Event": "push",
      "X-GitHub-Delivery": crypto.randomUUID(),
      "X-Hub-Signature-256": await signGithub(SECRET, body),
    });
    expect(response.status).toBe(503);
    expect(await response.text()).toContain(
      `webhook ${name} is not ready: its push target is refused`,
    );
  });
});

describe("scheduled runs", () => {
  /** The closed deployment with one schedule, `name`, and `extra` bindings. */
  const withSchedule = (name: string, schedule: Record<string, unknown>, extra = {}) =>
    ({ ...closedEnv, ...extra, SCHEDULES: JSON.stringify({ [name]: schedule }) }) as Env;
  /** The run of schedule `name` that the table holds (one tick each in these tests). */
  const runOf = (name: string) =>
    env.DB.prepare("SELECT task_id, error FROM schedule_runs WHERE schedule = ?")
      .bind(name)
      .first<{ task_id: string | null; error: string }>();

  async function fire(bindings: Env, at: Date): Promise<void> {
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ cron: "* * * * *", scheduledTime: at.getTime() }),
      bindings,
      ctx,
    );
    await waitOnExecutionContext(ctx);
  }

  it("starts a task on matching minutes only, once per tick however many times the trigger fires", async () => {
    const owner = await newUser();
    const other = await newUser();
    const name = `daily-${crypto.randomUUID().slice(0, 6)}`;
    const bindings = withSchedule(name, {
      cron: "30 9 * * 1-5",
      agent: "assistant",
      owner: owner.id,
      prompt: "[[reply:report sent]] Morning report for {{$time}}",
    });
    // Monday 2026-11-23 09:30:07 UTC (the event's time has seconds; the tick is the minute).
    const monday = new Date("2026-11-23T09:30:07Z");
    await Promise.all([fire(bindings, monday), fire(bindings, monday), fire(bindings, monday)]);
    // Not matching: 09:31, and Sunday 09:30.
    await fire(bindings, new Date("2026-11-23T09:31:00Z"));
    await fire(bindings, new Date("2026-11-22T09:30:00Z"));
    const { results } = await env.DB.prepare(
      "SELECT tick, task_id FROM schedule_runs WHERE schedule = ?",
    )
      .bind(name)
      .all<{ tick: string; task_id: string }>();
    expect(results.map((r) => r.tick)).toEqual(["2026-11-23T09:30:00.000Z"]);
    const taskId = results[0]?.task_id as string;
    const task = await completed(owner.token, taskId);
    expect(task.history?.[0]?.parts[0]?.text).toBe(
      "[[reply:report sent]] Morning report for 2026-11-23T09:30:00.000Z",
    );
    const tasks = await rpcAs<{ tasks: Task[] }>(owner.token, "ListTasks", {});
    expect(tasks.body.result?.tasks.filter((t) => t.id === taskId)).toHaveLength(1);
    expect(tasks.body.result?.tasks).toHaveLength(1);

    // The owner sees the schedule with its last run and the next one; another user sees none.
    const listed = (await (
      await callWorker(
        "/api/schedules",
        { headers: { Authorization: `Bearer ${owner.token}` } },
        bindings,
      )
    ).json()) as {
      schedules: Array<{ name: string; nextRun: string; lastRuns: Array<Record<string, unknown>> }>;
    };
    expect(listed.schedules).toHaveLength(1);
    expect(listed.schedules[0]).toMatchObject({
      name,
      cron: "30 9 * * 1-5",
      lastRuns: [{ tick: "2026-11-23T09:30:00.000Z", taskId, state: "TASK_STATE_COMPLETED" }],
    });
    expect(listed.schedules[0]?.nextRun).toMatch(/T09:30:00/);
    const theirs = (await (
      await callWorker(
        "/api/schedules",
        { headers: { Authorization: `Bearer ${other.token}` } },
        bindings,
      )
    ).json()) as { schedules: unknown[] };
    expect(theirs.schedules).toEqual([]);
  });

  it("records a run whose owner is not an active user, without a task", async () => {
    const name = `broken-${crypto.randomUUID().slice(0, 6)}`;
    const bindings = withSchedule(name, {
      cron: "* * * * *",
      agent: "assistant",
      owner: "nobody-here",
      prompt: "x",
    });
    await fire(bindings, new Date("2026-11-24T10:00:00Z"));
    expect(await runOf(name)).toEqual({
      task_id: null,
      error: "the owner nobody-here is not an active user",
    });
  });

  it("runs the cron trigger's work on demand for admins only, and events not when off", async () => {
    const owner = await newUser();
    const name = `now-${crypto.randomUUID().slice(0, 6)}`;
    const bindings = withSchedule(name, {
      cron: "* * * * *",
      agent: "assistant",
      owner: owner.id,
      prompt: "[[reply:ok]] x",
    });
    const cron = (headers: Record<string, string>, body?: string) =>
      callWorker(
        "/api/admin/cron",
        {
          method: "POST",
          headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
          ...(body ? { body } : {}),
        },
        bindings,
      );
    // With CRON_TRIGGERS=false (npm run dev) the cron event itself does nothing.
    await fire({ ...bindings, CRON_TRIGGERS: "false" } as Env, new Date());
    const none = await env.DB.prepare("SELECT COUNT(*) AS n FROM schedule_runs WHERE schedule = ?")
      .bind(name)
      .first<{ n: number }>();
    expect(none?.n).toBe(0);
    const admin = { Authorization: "Bearer test-admin-key" };
    expect((await cron({})).status).toBe(401);
    expect((await cron({ Authorization: `Bearer ${owner.token}` })).status).toBe(403);
    const bad = await cron(admin, '{"cron": 5}');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^cron:/);
    expect((await cron(admin, "not json")).status).toBe(400);

    const ran = await cron(admin);
    expect(ran.status).toBe(200);
    const body = (await ran.json()) as {
      cron: string;
      runs: Array<{ schedule: string; taskId: string | null }>;
    };
    expect(body.cron).toBe("* * * * *");
    const run = body.runs.find((r) => r.schedule === name);
    expect(run?.taskId).toEqual(expect.any(String));
    const task = await completed(owner.token, run?.taskId as string);
    expect(task.history?.[0]?.parts[0]?.text).toBe("[[reply:ok]] x");
    // The retention sweep by its expression (RETENTION_DAYS is 0 here: nothing to sweep).
    const swept = await cron(admin, '{"cron": "23 3 * * *"}');
    expect(await swept.json()).toEqual({ cron: "23 3 * * *", swept: 0, more: false });
  });

  it("starts no task on an agent switched off with ENABLE_<NAME>=false", async () => {
    const owner = await newUser();
    const name = `off-${crypto.randomUUID().slice(0, 6)}`;
    const bindings = withSchedule(
      name,
      { cron: "* * * * *", agent: "writer", owner: owner.id, prompt: "x" },
      { ENABLE_WRITER: "false" },
    );
    await fire(bindings, new Date("2026-11-24T10:00:00Z"));
    expect(await runOf(name)).toEqual({
      task_id: null,
      error: "the agent writer is switched off (ENABLE_WRITER=false)",
    });
  });
});
