/**
 * Events in and out under `wrangler dev`: the official SDK client (v1.0 and v0.3) registering
 * push notification configs that a local receiver fails at first, a signed GitHub webhook
 * starting a task that reports to its push target, docs/events.md's local webhook recipe run as
 * written, and a scheduled run fired through the admin route `POST /api/admin/cron` (twice, one
 * task) while `/__scheduled` fires nothing.
 */

import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TaskPushNotificationConfig } from "@a2a-js/sdk";
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliVars } from "../../scripts/dev-config.ts";
import { type FakePushReceiver, startFakePush } from "../fake-push/server.ts";
import { asTask, textRequest } from "./client.ts";
import { type DevServer, type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";
import { ROOT } from "./processes.ts";

let harness: ScriptedHarness;
let receiver: FakePushReceiver;
let server: DevServer;
const SECRET = "e2e-webhook-secret";
/** GitHub's X-Hub-Signature-256 of a body. */
const signGithub = (secret: string, body: string) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

async function until<T>(read: () => T | Promise<T>, done: (v: T) => boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** docs/events.md's local webhook recipe: its `npm run dev` line and the shell block after it. */
const recipe = (() => {
  const doc = readFileSync(join(ROOT, "docs", "events.md"), "utf8");
  const section = doc.slice(doc.indexOf("### A webhook on your machine"));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  const dev = (blocks[0] ?? "").trim();
  // The line's arguments as a shell would split them (single quotes hold the JSON).
  const args = [...dev.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "");
  return { dev, vars: cliVars(args.slice(args.indexOf("--") + 1)), shell: blocks[1] ?? "" };
})();

beforeAll(async () => {
  receiver = await startFakePush();
  const recipeHooks = JSON.parse(recipe.vars.get("WEBHOOKS") ?? "{}") as Record<string, unknown>;
  harness = await startScriptedHarness({
    ...Object.fromEntries(recipe.vars),
    WEB_FETCH_ALLOW_PRIVATE: "true",
    PUSH_RETRY_BASE_MS: "200",
    HOOK_SECRET: SECRET,
    ADMIN_API_KEY: "e2e-admin",
    WEBHOOKS: JSON.stringify({
      ...recipeHooks,
      github: {
        agent: "assistant",
        owner: "anonymous",
        secret: "HOOK_SECRET",
        events: ["push"],
        prompt:
          "[[reply:Reviewed.]] Review the push to {{repository.full_name}}: {{head_commit.message}}",
        push: { url: `${receiver.url}/hooks/from-webhook`, token: "wh-token" },
      },
    }),
    SCHEDULES: JSON.stringify({
      minutely: {
        cron: "* * * * *",
        agent: "writer",
        owner: "ops",
        prompt: "[[reply:Digest written.]] Write the digest for {{$time}}",
        push: { url: `${receiver.url}/hooks/from-schedule`, protocol: "0.3" },
      },
    }),
  });
  ({ server } = harness);
});

afterAll(async () => {
  await harness?.stop();
  await receiver?.close();
});

const control = (name: string, fail: number) =>
  fetch(`${receiver.url}/control/${name}`, { method: "POST", body: JSON.stringify({ fail }) });

describe("push notifications with the SDK client", () => {
  it("v1.0: an inline config and one added while working; a failing receiver is retried in order", async () => {
    await control("sdk-v1", 2);
    const slow = await fetch(`${harness.fake.url}/_scripted/scenarios`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "e2e-push-slow",
        turns: [
          { text: "A slow answer, streamed one piece at a time.", delayMs: 40, chunkSize: 2 },
        ],
      }),
    });
    expect(slow.status).toBe(201);
    const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
    const started = Date.now();
    const task = asTask(
      await client.sendMessage(
        textRequest("[[scenario:e2e-push-slow]] go", {
          returnImmediately: true,
          taskPushNotificationConfig: {
            url: `${receiver.url}/hooks/sdk-v1`,
            token: "sdk-token",
            authentication: { scheme: "Bearer", credentials: "sdk-cred" },
          },
        }),
      ),
    );
    const added = await client.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({
        taskId: task.id,
        url: `${receiver.url}/hooks/sdk-v1-b`,
      }),
    );
    expect(added.id).not.toBe("");
    const listed = await client.listTaskPushNotificationConfig({
      tenant: "",
      taskId: task.id,
      pageSize: 0,
      pageToken: "",
    });
    expect(listed.configs.map((c) => c.url)).toEqual([
      `${receiver.url}/hooks/sdk-v1`,
      `${receiver.url}/hooks/sdk-v1-b`,
    ]);
    const got = await until(
      () => receiver.received("sdk-v1"),
      (r) => r.some((x) => x.status === 200 && x.body.includes("TASK_STATE_COMPLETED")),
    );
    expect(got.map((r) => r.status)).toEqual([503, 503, 200, 200]);
    expect(got.map((r) => r.headers.authorization)).toEqual(Array(4).fill("Bearer sdk-cred"));
    expect(got.map((r) => r.headers["x-a2a-notification-token"])).toEqual(
      Array(4).fill("sdk-token"),
    );
    expect(JSON.parse(got[3]?.body ?? "{}")).toMatchObject({
      task: { id: task.id, status: { state: "TASK_STATE_COMPLETED" } },
    });
    // The second config was added while the task worked: it hears the end.
    const second = await until(
      () => receiver.received("sdk-v1-b"),
      (r) => r.length > 0,
    );
    expect(JSON.parse(second.at(-1)?.body ?? "{}")).toMatchObject({
      task: { status: { state: "TASK_STATE_COMPLETED" } },
    });
    const record = (await (await fetch(`${server.url}/api/tasks/${task.id}/push`)).json()) as {
      deliveries: Array<{ state: string; status: string; attempts: number }>;
    };
    expect(record.deliveries.filter((d) => d.status !== "delivered")).toEqual([]);
    console.log(
      JSON.stringify({
        msg: "e2e push timings",
        sinceSendMs: got.map((r) => r.at - started),
        attempts: record.deliveries.map((d) => [d.state, d.attempts]),
      }),
    );
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: added.id });
  });

  it("v0.3: a legacy client's inline config gets the v0.3 Task", async () => {
    const legacyCompat = { enabled: true };
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({
        legacyCompat,
        fetchImpl: (url: string | URL | Request) => fetch(url),
      }),
    }).createFromUrl(`${server.url}/agents/writer/`);
    const task = asTask(
      await client.sendMessage(
        textRequest("[[reply:Old but gold.]] hi", {
          taskPushNotificationConfig: { url: `${receiver.url}/hooks/sdk-v03`, token: "t03" },
        }),
      ),
    );
    const got = await until(
      () => receiver.received("sdk-v03"),
      (r) => r.some((x) => x.body.includes('"completed"')),
    );
    const last = JSON.parse(got.at(-1)?.body ?? "{}") as Record<string, unknown>;
    expect(last).toMatchObject({ kind: "task", id: task.id, status: { state: "completed" } });
    expect(got.at(-1)?.headers["content-type"]).toBe("application/json");
    expect(got.at(-1)?.headers["x-a2a-notification-token"]).toBe("t03");
  });
});

describe("triggers", () => {
  it("a signed GitHub webhook starts one task (redelivery included) that reports to its push target", async () => {
    const body = JSON.stringify({
      repository: { full_name: "acme/widgets" },
      head_commit: { message: "Add the thing" },
    });
    const headers = {
      "content-type": "application/json",
      "X-GitHub-Event": "push",
      "X-GitHub-Delivery": "e2e-delivery-1",
      "X-Hub-Signature-256": signGithub(SECRET, body),
    };
    const first = await fetch(`${server.url}/webhooks/github`, { method: "POST", headers, body });
    expect(first.status).toBe(202);
    const { taskId, url } = (await first.json()) as { taskId: string; url: string };
    const again = await fetch(`${server.url}/webhooks/github`, { method: "POST", headers, body });
    expect(await again.json()).toMatchObject({ taskId, redelivery: true });
    // A replay with a new, unsigned delivery id is the same event: no second task.
    const replayed = await fetch(`${server.url}/webhooks/github`, {
      method: "POST",
      headers: { ...headers, "X-GitHub-Delivery": "e2e-delivery-2" },
      body,
    });
    expect(await replayed.json()).toMatchObject({ taskId, redelivery: true });
    const unsigned = await fetch(`${server.url}/webhooks/github`, {
      method: "POST",
      headers: { ...headers, "X-Hub-Signature-256": "sha256=bad" },
      body,
    });
    expect(unsigned.status).toBe(401);
    const got = await until(
      () => receiver.received("from-webhook"),
      (r) => r.some((x) => x.body.includes("TASK_STATE_COMPLETED")),
    );
    expect(got.at(-1)?.headers["x-a2a-notification-token"]).toBe("wh-token");
    const task = (await (await fetch(url, { headers: { "A2A-Version": "1.0" } })).json()) as {
      history: Array<{ parts: Array<{ text: string }> }>;
    };
    expect(task.history[0]?.parts[0]?.text).toBe(
      "[[reply:Reviewed.]] Review the push to acme/widgets: Add the thing",
    );
  });

  it("docs/events.md's local webhook recipe works as written", async () => {
    expect(recipe.dev).toMatch(/^npm run dev -- --var 'WEBHOOKS:\{"local":/);
    expect(recipe.vars.get("LOCAL_HOOK_SECRET")).toBe("dev-secret");
    const lines = recipe.shell.trim().split("\n");
    const last = lines.pop() ?? "";
    expect(last).toBe("sleep 1; curl -s \"$URL\" -H 'A2A-Version: 1.0' | jq -r .status.state");
    // The block up to its last line, as written (the server's port for 8787); then its URL.
    const script = `${lines.join("\n").replaceAll("http://127.0.0.1:8787", server.url)}\necho "$URL"`;
    const url = execFileSync("bash", ["-c", script], { encoding: "utf8" }).trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/agents\/writer\/tasks\/\S+$/);
    const task = await until(
      async () =>
        (await (await fetch(url, { headers: { "A2A-Version": "1.0" } })).json()) as {
          status: { state: string };
          history: Array<{ parts: Array<{ text: string }> }>;
        },
      (t) => t.status.state === "TASK_STATE_COMPLETED",
    );
    expect(task.history[0]?.parts[0]?.text).toBe(
      `A local event: ${JSON.stringify({ build: "green" }, null, 2)}`,
    );
  });

  it("a scheduled run fires through the admin cron route once per tick", async () => {
    // A schedule is owned by a user (an anonymous one would have nobody to tell its task ids).
    const made = await fetch(`${server.url}/api/admin/users`, {
      method: "POST",
      headers: { Authorization: "Bearer e2e-admin", "content-type": "application/json" },
      body: JSON.stringify({ id: "ops" }),
    });
    expect(made.status).toBe(201);
    const { token } = (await made.json()) as { token: string };
    const schedules = async () =>
      (await (
        await fetch(`${server.url}/api/schedules`, {
          headers: { Authorization: `Bearer ${token}` },
        })
      ).json()) as {
        schedules: Array<{ name: string; lastRuns: Array<{ taskId: string; state: string }> }>;
      };
    // Local URLs that would run the cron for anyone who asks: wrangler's --test-scheduled route
    // is not enabled, and the event wrangler dev always fires from /cdn-cgi/local/scheduled is
    // ignored (CRON_TRIGGERS=false; wrangler answers once the handler has run).
    const open = await fetch(`${server.url}/__scheduled?cron=*+*+*+*+*`);
    expect(open.status).toBe(404);
    expect(open.headers.get("content-type")).toContain("application/json");
    const local = await fetch(`${server.url}/cdn-cgi/local/scheduled?cron=*+*+*+*+*`);
    expect(local.status).toBe(200);
    expect((await schedules()).schedules[0]?.lastRuns).toEqual([]);
    const cron = (authorization?: string) =>
      fetch(`${server.url}/api/admin/cron`, {
        method: "POST",
        headers: authorization ? { Authorization: authorization } : {},
      });
    expect((await cron()).status).toBe(403); // anonymous: npm run dev is open
    expect((await cron(`Bearer ${token}`)).status).toBe(403);
    const fire = () => cron("Bearer e2e-admin");
    const [a, b] = await Promise.all([fire(), fire()]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const listed = await until(
      schedules,
      (v) => v.schedules[0]?.lastRuns[0]?.state === "TASK_STATE_COMPLETED",
    );
    // Two fires in one minute: one run (a fire in the next minute would be a second tick).
    const runs = listed.schedules[0]?.lastRuns ?? [];
    expect(runs.length === 1 || new Set(runs.map((r) => r.taskId)).size === runs.length).toBe(true);
    const got = await until(
      () => receiver.received("from-schedule"),
      (r) => r.some((x) => x.body.includes('"completed"')),
    );
    expect(JSON.parse(got.at(-1)?.body ?? "{}")).toMatchObject({ kind: "task" });
  });
});
