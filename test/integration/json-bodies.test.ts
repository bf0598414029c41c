/**
 * Every state-changing route that reads JSON takes JSON only: a body sent as text/plain, a form or
 * with no Content-Type (what another site can send with a visitor's cookies and no CORS
 * preflight) is a 415 in the endpoint's own shape, before it is acted on: the A2A endpoints
 * (JSON-RPC and REST), the MCP and AG-UI faces, and the REST API (admin, consent, sessions,
 * knowledge, cron). The exceptions take other bodies on purpose: the admin document uploads
 * (Markdown, by PUT) and webhooks (GitHub's form-encoded deliveries, signed).
 */
import { describe, expect, it } from "vitest";
import { userMessage } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser } from "../helpers/as-user.ts";

const ADMIN = "json-bodies-admin";
const env = {
  ...closedEnv,
  ALLOW_ANONYMOUS: "true",
  ADMIN_API_KEY: ADMIN,
  WEBHOOKS: JSON.stringify({
    hook: { agent: "writer", owner: "anonymous", secret: "HOOK_SECRET", prompt: "{{$json}}" },
  }),
  HOOK_SECRET: "s",
} as Env;
const admin = { Authorization: `Bearer ${ADMIN}` };

/** The bodies another site can send without a preflight: as text, as a form, with no type. */
const CROSS_SITE: Array<[string, string | null]> = [
  ["text/plain", "text/plain;charset=UTF-8"],
  ["a form", "application/x-www-form-urlencoded"],
  ["no type", null],
];

/** Calls `path` with `body` sent as `type` (null: no Content-Type at all). */
function call(
  method: string,
  path: string,
  body: unknown,
  type: string | null,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  return callWorker(
    path,
    {
      method,
      headers: { ...(type ? { "content-type": type } : {}), ...headers },
      // Bytes carry no Content-Type of their own; a string would be text/plain.
      body: type ? text : new TextEncoder().encode(text),
    },
    env,
  );
}

const rpcBody = (method: string, params: unknown) => ({ jsonrpc: "2.0", id: 9, method, params });
const send = { message: userMessage("never sent") };
const mcpSend = rpcBody("tools/call", { name: "send_message", arguments: { text: "never" } });
const run = {
  threadId: "t-json-bodies",
  runId: "r",
  messages: [{ id: "1", role: "user", content: "never" }],
};

/** Each JSON route: its method, path, a body it would act on, headers, and its 415's shape. */
const ROUTES: Array<[string, string, string, unknown, Record<string, string>, unknown]> = [
  [
    "JSON-RPC",
    "POST",
    "/agents/writer/",
    rpcBody("SendMessage", send),
    { "A2A-Version": "1.0" },
    { jsonrpc: "2.0", id: 9, error: { code: -32005 } },
  ],
  [
    "HTTP+JSON",
    "POST",
    "/agents/writer/message:send",
    send,
    { "A2A-Version": "1.0" },
    { error: { code: 415, details: [{ reason: "CONTENT_TYPE_NOT_SUPPORTED" }] } },
  ],
  [
    "MCP",
    "POST",
    "/agents/writer/mcp",
    mcpSend,
    { accept: "application/json, text/event-stream" },
    { jsonrpc: "2.0", error: { code: -32000 } },
  ],
  ["AG-UI", "POST", "/agents/writer/ag-ui", run, {}, { error: { code: 415 } }],
  ["a new user", "POST", "/api/admin/users", { id: "csrf-made" }, admin, { error: { code: 415 } }],
  [
    "a budget",
    "POST",
    "/api/admin/users/nobody/budget",
    { dayTokens: 1 },
    admin,
    { error: { code: 415 } },
  ],
  [
    "a knowledge document",
    "PUT",
    "/api/admin/knowledge/csrf-doc",
    { agent: "*", title: "t", content: "c" },
    admin,
    { error: { code: 415 } },
  ],
  [
    "the cron run",
    "POST",
    "/api/admin/cron",
    { cron: "* * * * *" },
    admin,
    { error: { code: 415 } },
  ],
  ["a session", "POST", "/api/sessions", { agent: "writer" }, {}, { error: { code: 415 } }],
];

describe("JSON routes take JSON only", () => {
  it.each(ROUTES)("%s: a cross-site body is a 415 in the endpoint's shape", async (...route) => {
    const [, method, path, body, headers, shape] = route;
    for (const [name, type] of CROSS_SITE) {
      const response = await call(method, path, body, type, headers);
      expect(response.status, name).toBe(415);
      expect(await response.json(), name).toMatchObject(shape as Record<string, unknown>);
    }
  });

  it("consent: a cross-site body is a 415, JSON is recorded", async () => {
    const { token } = await newUser();
    const headers = { Authorization: `Bearer ${token}` };
    const { version } = (await (await callWorker("/api/privacy", {}, env)).json()) as {
      version: string;
    };
    const policy = { version };
    for (const [name, type] of CROSS_SITE) {
      const response = await call("POST", "/api/privacy/consent", policy, type, headers);
      expect(response.status, name).toBe(415);
    }
    const consent = await call("POST", "/api/privacy/consent", policy, "application/json", headers);
    expect(consent.status).toBe(200);
    expect(await consent.json()).toMatchObject({ current: true });
  });

  it("a new user sent as text/plain is not made; as JSON it is", async () => {
    const id = `u-${crypto.randomUUID().slice(0, 8)}`;
    expect((await call("POST", "/api/admin/users", { id }, "text/plain", admin)).status).toBe(415);
    const users = async () =>
      (
        (await (await callWorker("/api/admin/users", { headers: admin }, env)).json()) as {
          users: Array<{ id: string }>;
        }
      ).users.map((u) => u.id);
    expect(await users()).not.toContain(id);
    expect((await call("POST", "/api/admin/users", { id }, "application/json", admin)).status).toBe(
      201,
    );
    expect(await users()).toContain(id);
  });

  it("takes a request with no body whatever its type (a cancel, a reload)", async () => {
    const reload = await callWorker("/api/admin/reload", { method: "POST", headers: admin }, env);
    expect(reload.status).toBe(200);
    const cancel = await callWorker(
      "/agents/writer/tasks/no-such-task:cancel",
      { method: "POST", headers: { "A2A-Version": "1.0" } },
      env,
    );
    expect(cancel.status).toBe(404);
  });

  it("leaves the routes that take other bodies on purpose: document uploads and webhooks", async () => {
    const memory = await callWorker(
      "/api/admin/agents/writer/memory",
      { method: "PUT", headers: { ...admin, "content-type": "text/plain" }, body: "Shared note." },
      env,
    );
    expect(memory.status).toBe(200);
    // A form-encoded GitHub delivery reaches its signature check (unsigned here: 401, not 415).
    const webhook = await callWorker(
      "/webhooks/hook",
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "payload=%7B%7D",
      },
      env,
    );
    expect(webhook.status).toBe(401);
  });
});
