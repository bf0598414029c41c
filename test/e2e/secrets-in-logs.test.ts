/**
 * No credential is ever logged: a dev server with every log on (wrangler's info level, one line
 * per request and per tool call with LOG_TOOL_USE) runs tasks as an admin by bearer key and as a
 * user by token, refuses a wrong bearer token, and takes a signed webhook; none of the Anthropic
 * API key, the admin key, the user's token, the refused token, the webhook's secret or its push
 * target's token is anywhere in what the server printed.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedAgents } from "./agent-set.ts";
import { messageCallBody, scenario } from "./client.ts";
import { type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";

const unique = (name: string) => `${name}-${crypto.randomUUID()}`;
const SECRETS = {
  apiKey: unique("sk-ant-logged"),
  adminKey: unique("admin-logged"),
  refusedToken: unique("refused-logged"),
  hookSecret: unique("hook-logged"),
  pushToken: unique("push-logged"),
};

let harness: ScriptedHarness;
let savedLevel: string | undefined;

beforeAll(async () => {
  savedLevel = process.env.WRANGLER_LOG;
  process.env.WRANGLER_LOG = "info";
  harness = await startScriptedHarness({
    ANTHROPIC_API_KEY: SECRETS.apiKey,
    ADMIN_API_KEY: SECRETS.adminKey,
    AUTH_REQUIRED: "true",
    LOG_TOOL_USE: "true",
    WEB_FETCH_ALLOW_PRIVATE: "true",
    HOOK_SECRET: SECRETS.hookSecret,
    WEBHOOKS: JSON.stringify({
      github: {
        agent: servedAgents()[0],
        owner: "ops",
        secret: "HOOK_SECRET",
        events: ["push"],
        prompt: "[[reply:Seen.]] Look at {{repository.full_name}}",
        push: { url: "http://127.0.0.1:9/hooks", token: SECRETS.pushToken },
      },
    }),
  });
}, 240_000);

afterAll(async () => {
  await harness?.stop();
  if (savedLevel === undefined) delete process.env.WRANGLER_LOG;
  else process.env.WRANGLER_LOG = savedLevel;
});

describe("the server's log", () => {
  it("holds no API key, bearer token or webhook secret, with every log line on", async () => {
    const { url } = harness.server;
    const agent = servedAgents()[0] as string;
    const marker = await scenario(harness.fake.url, "secrets-in-logs", [
      { text: "", toolUses: [{ name: "no_such_tool_for_logs", input: { n: 1 } }] },
      { text: "Done." },
    ]);
    const rpc = (token: string) =>
      fetch(`${url}/agents/${agent}/`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "A2A-Version": "1.0",
          Authorization: `Bearer ${token}`,
        },
        body: messageCallBody("SendMessage", `Log nothing secret ${marker}`),
      });
    // The webhook's owner, a user whose token works too.
    const made = await fetch(`${url}/api/admin/users`, {
      method: "POST",
      headers: { Authorization: `Bearer ${SECRETS.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ id: "ops" }),
    });
    expect(made.status).toBe(201);
    const userToken = ((await made.json()) as { token: string }).token;
    expect((await rpc(userToken)).status).toBe(200);
    const sent = (await (await rpc(SECRETS.adminKey)).json()) as {
      result?: { task?: { status: { state: string } } };
    };
    expect(sent.result?.task?.status.state).toBe("TASK_STATE_COMPLETED");
    expect((await rpc(SECRETS.refusedToken)).status).toBe(401);
    const body = JSON.stringify({ repository: { full_name: "acme/widgets" } });
    const signature = `sha256=${createHmac("sha256", SECRETS.hookSecret).update(body).digest("hex")}`;
    const hook = await fetch(`${url}/webhooks/github`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": crypto.randomUUID(),
        "X-Hub-Signature-256": signature,
      },
      body,
    });
    expect(hook.status, await hook.clone().text()).toBe(202);
    // The log was on and captured: the tool call's line is there.
    await expect.poll(() => harness.server.output(), { timeout: 30_000 }).toContain('"msg":"tool"');
    const output = harness.server.output();
    for (const [name, secret] of Object.entries({ ...SECRETS, userToken })) {
      expect(output.includes(secret), `${name} is in the log`).toBe(false);
    }
  });
});
