/**
 * 1,000 malformed or hostile requests, generated from a fixed seed (the same every run) across
 * paths, HTTP methods, headers, bodies, JSON-RPC methods and params: none may get a 5xx, and
 * every answer on a JSON-RPC path must be a JSON-RPC error object (in the SSE stream when the
 * answer is a stream). A failure names the request, so it can be replayed by hand. And a push
 * fan-out: a caller registering a hundred webhooks on one task gets MAX_PUSH_CONFIGS_PER_TASK.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/protocol/json-shape.ts";
import worker from "../../src/worker.ts";
import { fetchWorker, postRpc, postRpcV03, rpc, userMessage } from "../helpers/a2a.ts";

/**
 * One request to the Worker, read to its end, with its own execution context (the suite's
 * `fetchWorker` slows down a little with every request it has made, which 1,000 requests feel).
 */
async function send(request: HostileRequest): Promise<{ response: Response; text: string }> {
  const ctx = createExecutionContext();
  const headers = new Headers(request.headers);
  if (request.body !== undefined && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  const response = await worker.fetch(
    new Request(`http://harness.test${request.path}`, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    }),
    env,
    ctx,
  );
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { response, text };
}

/** mulberry32: a small seeded PRNG, so every run sends the same requests. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(0x15a2a);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const chance = (p: number) => random() < p;

const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
];
const METHODS_V1 = [
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard",
];
const METHODS_V03 = [
  "message/send",
  "message/stream",
  "tasks/get",
  "tasks/cancel",
  "tasks/resubscribe",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/get",
  "tasks/pushNotificationConfig/list",
  "tasks/pushNotificationConfig/delete",
  "agent/getAuthenticatedExtendedCard",
];

const STRANGE_STRINGS = [
  "",
  " ",
  "\u0000",
  "\u202e\u0007",
  "😀".repeat(40),
  "x".repeat(5_000),
  "../../etc/passwd",
  "%00%2e%2e",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "$" + "{jndi:ldap://x}",
  "\ud800",
  "NaN",
  "-1",
  "1e309",
  ...PROTO_KEYS,
];

/** A value of any JSON type, hostile more often than not. */
function value(depth = 0): unknown {
  const kind = Math.floor(random() * (depth > 3 ? 6 : 9));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return pick([true, false]);
    case 2:
      return pick([0, -1, 1.5, 2 ** 53 + 1, 1e308, -0]);
    case 3:
    case 4:
    case 5:
      return pick(STRANGE_STRINGS);
    case 6:
      return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 4); i > 0; i--)
        out[pick([...PROTO_KEYS, "id", "message", "parts", "taskId", "x"])] = value(depth + 1);
      return out;
    }
  }
}

/** A message that is wrong in one or more ways (never a valid one). */
function badMessage(): unknown {
  const message: Record<string, unknown> = {
    messageId: chance(0.5) ? "hostile" : value(),
    role: pick(["ROLE_USER", "ROLE_AGENT", "user", 7, null, "__proto__"]),
    parts: pick([
      [],
      [{}],
      [{ text: 5 }],
      [{ text: "a", raw: "b" }],
      [{ raw: "not base64!" }],
      [{ url: "javascript:alert(1)" }],
      [{ url: "http://169.254.169.254/" }],
      [{ data: null }],
      [{ kind: "text", text: "v03 part in a v1 message" }],
      [{ text: "a", mediaType: "x".repeat(300) }],
      value(),
    ]),
  };
  if (chance(0.3)) message.taskId = pick([value(), "x".repeat(300), "__proto__"]);
  if (chance(0.3)) message.contextId = value();
  // An own "__proto__" key, as JSON.parse makes one (assigning would set the prototype instead).
  if (chance(0.2))
    Object.defineProperty(message, "__proto__", { value: { polluted: true }, enumerable: true });
  // A message that happens to be well formed is spoiled.
  if (Array.isArray(message.parts) && message.parts.length === 1) message.role = 7;
  return message;
}

function params(method: string): unknown {
  switch (Math.floor(random() * 6)) {
    case 0:
      return value();
    case 1:
      return { message: badMessage(), configuration: value() };
    case 2:
      return { id: value(), historyLength: pick([-1, 1.5, "x", 2 ** 40, null]) };
    case 3:
      return { taskId: value(), pushNotificationConfig: value(), url: pick(STRANGE_STRINGS) };
    case 4:
      return { [pick(PROTO_KEYS)]: value(), method };
    default:
      return pick([[], "params", 42, null]);
  }
}

/** Params for `method`; ListTasks (which ignores unknown fields) always gets a bad page size. */
function hostileParams(method: string): unknown {
  const p = params(method);
  if (method !== "ListTasks") return p;
  return typeof p === "object" && p !== null && !Array.isArray(p) ? { ...p, pageSize: 0 } : p;
}

/** A JSON-RPC body: a broken envelope, or a well-formed one with a hostile method or params. */
function rpcBody(): string {
  switch (Math.floor(random() * 10)) {
    case 0:
      return pick(["", "{", "[", "null", "42", '"s"', "{]", "\u0000", "{'a':1}"]);
    case 1:
      return `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    case 2:
      return JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }]);
    case 3:
      return JSON.stringify({ jsonrpc: pick(["1.0", 2, null]), id: 1, method: "GetTask" });
    case 4:
      return JSON.stringify({ jsonrpc: "2.0", id: value(), method: value(), params: value() });
    default: {
      const method = pick([
        ...METHODS_V1,
        ...METHODS_V03,
        ...PROTO_KEYS,
        "tasks/",
        "x".repeat(500),
      ]);
      const id = chance(0.8) ? 1 : value();
      return JSON.stringify({ jsonrpc: "2.0", id, method, params: hostileParams(method) });
    }
  }
}

const AGENT_PATHS = ["/agents/writer/", "/agents/assistant", "/agents/conformance/"];
const RPC_PATHS = ["/", ...AGENT_PATHS];
const OTHER_PATHS = [
  "/message:send",
  "/message:stream",
  "/tasks",
  "/tasks/%ZZ",
  "/tasks/__proto__",
  "/tasks/x:cancel",
  "/tasks/x:subscribe",
  "/tasks/x/pushNotificationConfigs",
  "/tasks/x/pushNotificationConfigs/__proto__",
  "/v1/message:send",
  "/v1/tasks/x",
  "/v1/card",
  "/extendedAgentCard",
  "/agents/writer/message:send",
  "/agents/%ZZ/message:send",
  "/agents/__proto__/",
  "/agents/constructor/.well-known/agent-card.json",
  "/.well-known/agent-card.json",
  "/.well-known/agent.json",
  "/.well-known/jwks.json",
  "/webhooks/__proto__",
  "/webhooks/constructor",
  "/api/tasks/__proto__/events",
  "/api/sessions/__proto__",
  "/api/usage?user=__proto__",
  "/api/admin/agents/__proto__/identity",
  "/console",
  "//agents",
  "/agents/writer/../../etc/passwd",
  `/${"a/".repeat(300)}`,
  "/%F0%9F%98%80",
];

const HEADER_VALUES: Record<string, readonly string[]> = {
  "A2A-Version": ["1.0", "0.3", "", "99.0", "abc", "1.0.0.0", "x".repeat(2_000), "-1"],
  "Content-Type": [
    "application/json",
    "application/a2a+json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=utf-16",
    "*/*",
  ],
  Accept: ["*/*", "application/a2a+json", "text/event-stream", "image/png", "a/b;q=x"],
  "Last-Event-ID": ["-1", "abc", "1e309", "99999999999999999999", "0", "3"],
  Authorization: ["Bearer", "Bearer x", "Basic Og==", "Bearer a2a_x", "x".repeat(3_000)],
  traceparent: ["00-zz-zz-01", `ff-${"0".repeat(52)}`, "x"],
  "A2A-Extensions": ["https://example.com/ext, __proto__", ""],
  "If-None-Match": ['"x"', "*"],
  "If-Modified-Since": ["yesterday", "Thu, 01 Jan 1970 00:00:00 GMT"],
};

interface HostileRequest {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  rpc: boolean;
}

function hostileRequest(): HostileRequest {
  const rpc = chance(0.6);
  const path = rpc ? pick(RPC_PATHS) : pick(OTHER_PATHS);
  const method = rpc ? "POST" : pick(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(HEADER_VALUES))
    if (chance(name === "A2A-Version" || name === "Content-Type" ? 0.7 : 0.15))
      headers[name] = pick(values);
  // Without a Content-Type, send() sends the body as application/json.
  let body: string | undefined;
  if (method !== "GET" && method !== "OPTIONS")
    body = rpc || chance(0.5) ? rpcBody() : JSON.stringify(value());
  return { path, method, headers, body, rpc };
}

/** Checks one JSON-RPC answer (plain, or each event of a stream); returns what is wrong. */
function rpcProblems(response: Response, text: string): string | null {
  const payloads =
    response.headers.get("content-type") === "text/event-stream"
      ? text
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice(6))
      : [text];
  if (payloads.length === 0) return "an empty stream";
  for (const payload of payloads) {
    let answer: { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
    try {
      answer = JSON.parse(payload);
    } catch {
      return `not JSON: ${payload.slice(0, 120)}`;
    }
    if (
      answer.jsonrpc !== "2.0" ||
      !Number.isInteger(answer.error?.code) ||
      typeof answer.error?.message !== "string"
    )
      return `not a JSON-RPC error: ${payload.slice(0, 200)}`;
  }
  return null;
}

describe("hostile requests", () => {
  it("1,000 seeded malformed requests: no 5xx, a JSON-RPC error on every JSON-RPC path", async () => {
    const requests = Array.from({ length: 1_000 }, hostileRequest);
    // A few bodies past MAX_BODY_BYTES (1 MiB), on both kinds of paths.
    for (const [i, path] of [
      [7, "/"],
      [307, "/message:send"],
      [707, "/agents/writer/"],
    ] as const) {
      const request = requests[i] as HostileRequest;
      Object.assign(request, { path, method: "POST", rpc: path.endsWith("/") });
      request.body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "x",
        params: "y".repeat(1_100_000),
      });
    }
    const failures: string[] = [];
    for (const [i, request] of requests.entries()) {
      const { response, text } = await send(request);
      const problem =
        response.status >= 500
          ? `HTTP ${response.status}: ${text.slice(0, 200)}`
          : request.rpc
            ? rpcProblems(response, text)
            : null;
      if (problem)
        failures.push(
          `#${i} ${request.method} ${request.path.slice(0, 80)} ${JSON.stringify(request.headers).slice(0, 200)} ${String(request.body).slice(0, 200)} -> ${problem}`,
        );
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it("a push fan-out: 100 webhooks on one task, 10 taken, the rest refused on JSON-RPC and REST", async () => {
    const sent = await rpc<{ task: { id: string } }>("SendMessage", {
      message: userMessage("[[reply:done]]"),
    });
    const taskId = sent.result?.task.id as string;
    // The task has ended: the configs are stored, nothing is ever sent to them.
    const url = (i: number) => `https://hooks.example.com/fan-out/${i}`;
    const outcomes: string[] = [];
    for (let i = 0; i < 100; i++) {
      if (i % 2 === 0) {
        const answer = await rpc("CreateTaskPushNotificationConfig", { taskId, url: url(i) });
        outcomes.push(answer.error ? `${answer.error.code} ${answer.error.message}` : "ok");
      } else {
        const response = await fetchWorker(`/tasks/${taskId}/pushNotificationConfigs`, {
          method: "POST",
          headers: { "content-type": "application/json", "A2A-Version": "1.0" },
          body: JSON.stringify({ url: url(i) }),
        });
        outcomes.push(
          response.status === 201 ? "ok" : `${response.status} ${await response.text()}`,
        );
      }
    }
    expect(outcomes.slice(0, 10)).toEqual(Array(10).fill("ok"));
    for (const [i, outcome] of outcomes.slice(10).entries()) {
      expect(outcome, `config ${i + 10}`).toMatch(i % 2 === 0 ? /^-32602 / : /^400 /);
      expect(outcome).toContain("a task holds at most 10 push notification configs");
    }
    const list = await rpc<{ configs: Array<{ id: string; url: string }> }>(
      "ListTaskPushNotificationConfigs",
      { taskId },
    );
    const configs = list.result?.configs ?? [];
    expect(configs.map((c) => c.url)).toEqual(Array.from({ length: 10 }, (_, i) => url(i)));
    // At the cap, a config set again by its id is replaced, not refused.
    const first = configs[0] as { id: string };
    const replaced = await rpc("CreateTaskPushNotificationConfig", {
      taskId,
      id: first.id,
      url: "https://hooks.example.com/fan-out/replaced",
    });
    expect(replaced.error).toBeUndefined();
    // 100 requests one after another: room for a loaded machine.
  }, 180_000);
});

/** A value nested `depth` objects deep: {"a":{"a":...{"a":1}}}. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** The attack round's payloads: squared when indented, too deep to store. */
const NESTED_MESSAGES = {
  "one data part 1,100 deep": [{ data: nested(1_100) }],
  "150 data parts 600 deep": Array.from({ length: 150 }, () => ({ data: nested(600) })),
};

describe("hostile nesting", () => {
  for (const [name, parts] of Object.entries(NESTED_MESSAGES)) {
    it(`${name}: -32602 on JSON-RPC v1.0 and v0.3, 400 on REST, nothing started`, async () => {
      const message = { messageId: crypto.randomUUID(), role: "ROLE_USER", parts };
      const v1 = await postRpc("/agents/writer/", "SendMessage", {
        message: { ...message, contextId: crypto.randomUUID() },
      });
      const v1Body = (await v1.json()) as { error?: { code: number; message: string } };
      expect(v1Body.error?.code).toBe(-32602);
      expect(v1Body.error?.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
      const v03 = await postRpcV03("/agents/writer/", "message/send", {
        message: {
          kind: "message",
          messageId: crypto.randomUUID(),
          role: "user",
          parts: parts.map((p) => ({ kind: "data", ...p })),
        },
      });
      expect(((await v03.json()) as { error?: { code: number } }).error?.code).toBe(-32602);
      const rest = await fetchWorker("/agents/writer/message:send", {
        method: "POST",
        headers: { "A2A-Version": "1.0" },
        body: JSON.stringify({ message }),
      });
      expect(rest.status).toBe(400);
      expect(await rest.text()).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    });
  }

  it("metadata nested too deep is refused like data", async () => {
    const response = await postRpc("/agents/writer/", "SendMessage", {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: "hi" }],
        metadata: nested(200),
      },
    });
    const body = (await response.json()) as { error?: { code: number; message: string } };
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.message).toMatch(/^Invalid parameters: params\.message\.metadata\.a\.a/);
  });
});
