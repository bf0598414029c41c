/**
 * Helpers for tests inside workerd: call the Worker like a client (JSON-RPC and SSE), and script
 * the fake Messages API (scenarios, request log) that runs on 127.0.0.1 in the test process.
 */
import { env, exports } from "cloudflare:workers";
import type { Turn } from "../../src/model/scripted/turn.ts";

/** JSON-RPC response as the tests read it. */
export interface RpcResponse<T = Record<string, unknown>> {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: T;
  error?: { code: number; message: string; data?: Array<Record<string, unknown>> };
}

/**
 * Sends a raw request to the Worker. A string body goes as `application/json` unless the test
 * names another type (fetch would send `text/plain`, which the A2A endpoints refuse).
 */
export function fetchWorker(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (typeof init.body === "string" && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  return exports.default.fetch(new Request(`http://harness.test${path}`, { ...init, headers }));
}

/** Posts a JSON-RPC v1.0 call and returns the HTTP response. */
export function postRpc(
  path: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetchWorker(path, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** Posts a JSON-RPC v1.0 call and parses the JSON response. */
export async function rpc<T = Record<string, unknown>>(
  method: string,
  params: unknown,
  options: { path?: string; headers?: Record<string, string> } = {},
): Promise<RpcResponse<T>> {
  const response = await postRpc(options.path ?? "/", method, params, options.headers);
  return (await response.json()) as RpcResponse<T>;
}

/** A user message with text parts. */
export function userMessage(
  text: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra };
}

/** One parsed SSE event. */
export interface SseEvent {
  id: string | null;
  data: string;
}

/** Reads SSE events from a response as they arrive. */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) throw new Error("no body");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = frame.split("\n");
        const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6));
        const id = lines.find((l) => l.startsWith("id: "))?.slice(4) ?? null;
        if (data.length > 0) yield { id, data: data.join("\n") };
        end = buffer.indexOf("\n\n");
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Collects every SSE event of a finite stream, parsed as JSON-RPC responses. */
export async function collectSse(
  response: Response,
): Promise<Array<{ id: string | null; body: RpcResponse }>> {
  const out: Array<{ id: string | null; body: RpcResponse }> = [];
  for await (const event of sseEvents(response))
    out.push({ id: event.id, body: JSON.parse(event.data) as RpcResponse });
  return out;
}

/** Registers a scripted scenario with the fake model; returns the marker to put in a message. */
export async function scenario(turns: Turn[]): Promise<{ id: string; marker: string }> {
  const id = `s-${crypto.randomUUID()}`;
  const response = await fetch(`${env.FAKE_MODEL_URL}/_scripted/scenarios`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id, turns }),
  });
  if (response.status !== 201) throw new Error(`scenario rejected: ${await response.text()}`);
  return { id, marker: `[[scenario:${id}]]` };
}

/** A request the fake model received. */
export interface FakeRequest {
  turnIndex: number;
  attempt: number;
  status: number;
  body: { system?: unknown; messages: Array<{ role: string; content: unknown }>; model: string };
}

/** The requests the fake model received for a scenario, oldest first. */
export async function modelRequests(scenarioId: string): Promise<FakeRequest[]> {
  const response = await fetch(
    `${env.FAKE_MODEL_URL}/_scripted/requests?scenario=${encodeURIComponent(scenarioId)}`,
  );
  return ((await response.json()) as { requests: FakeRequest[] }).requests;
}

/** The tool names offered in a scenario's `index`-th model request. */
export async function offeredTools(scenarioId: string, index = 0): Promise<string[]> {
  const request = (await modelRequests(scenarioId))[index];
  if (!request) throw new Error(`no model request ${index} for ${scenarioId}`);
  const body = request.body as unknown as { tools?: Array<{ name: string }> };
  return (body.tools ?? []).map((t) => t.name);
}

/**
 * A scripted turn that calls one tool. `text` (when given, even "") is a text block before the
 * call; without it the turn has no text block at all.
 */
export function toolTurn(name: string, input: Record<string, unknown>, text?: string): Turn {
  return { ...(text === undefined ? {} : { text }), toolUses: [{ name, input }] };
}

/** {@link toolTurn} with a text block always (empty unless given), as most scenarios script it. */
export const textToolTurn = (name: string, input: Record<string, unknown>, text = ""): Turn =>
  toolTurn(name, input, text);

/** The tool_result texts in the last request the model saw for a scenario ("ERROR " marks errors). */
export async function toolResults(scenarioId: string): Promise<string[]> {
  const out: string[] = [];
  for (const m of (await modelRequests(scenarioId)).at(-1)?.body.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type: string; content?: string; is_error?: boolean }>)
      if (b.type === "tool_result") out.push(`${b.is_error ? "ERROR " : ""}${b.content ?? ""}`);
  }
  return out;
}

/** Polls `read` until `done` holds for its value, or fails after `timeoutMs`. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  // Generous: it returns as soon as the condition holds; only a failing test waits this long.
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(
        `condition not met in ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 500)}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A part of a message or artifact as tests read it. */
export type WirePart = { text?: string; data?: Record<string, unknown> };

/** The task from a SendMessage / GetTask result. */
export type WireTask = {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: WirePart[] }; timestamp: string };
  artifacts?: Array<{ artifactId: string; name?: string; parts: WirePart[] }>;
  history?: Array<{ role: string; parts: WirePart[]; extensions?: string[] }>;
  metadata?: Record<string, unknown>;
};

/** Text of a task's answer artifact. */
export function answerText(task: WireTask): string {
  return (task.artifacts ?? [])
    .filter((a) => a.artifactId === "answer")
    .flatMap((a) => a.parts.map((p) => p.text ?? ""))
    .join("");
}
