/**
 * Helpers for tests inside workerd that call the Worker like a client: raw requests, JSON-RPC as
 * v1.0 and v0.3 clients send it, and the task shape the tests read. Reading SSE streams is in
 * sse.ts, scripting the fake model in fake-model.ts.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";

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

/** Posts a JSON-RPC call as a v1.0 client does (`A2A-Version: 1.0`); the HTTP response. */
export function postRpc(
  path: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return postJsonRpc(path, { "A2A-Version": "1.0", ...headers }, 1, method, params);
}

/** Posts a JSON-RPC call as a v0.3 client does (no `A2A-Version` header); the HTTP response. */
export function postRpcV03(
  path: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return postJsonRpc(path, headers, "v03", method, params);
}

function postJsonRpc(
  path: string,
  headers: Record<string, string>,
  id: number | string,
  method: string,
  params: unknown,
): Promise<Response> {
  return fetchWorker(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
}

/**
 * How {@link rpc} calls: the agent's path ("/" unless given), extra headers, and as which client
 * (v1.0 unless `v03`).
 */
export type RpcOptions = { path?: string; headers?: Record<string, string>; v03?: boolean };

/** Posts a JSON-RPC call ({@link postRpc}, or {@link postRpcV03} when `v03`); its JSON answer. */
export async function rpc<T = Record<string, unknown>>(
  method: string,
  params: unknown,
  options: RpcOptions = {},
): Promise<RpcResponse<T>> {
  const post = options.v03 ? postRpcV03 : postRpc;
  const response = await post(options.path ?? "/", method, params, options.headers);
  return (await response.json()) as RpcResponse<T>;
}

/** A v1.0 SendMessage with `params`; the task it answers with (undefined on an error). */
export async function sendTask(params: unknown, options: RpcOptions = {}): Promise<WireTask> {
  return (await rpc<{ task: WireTask }>("SendMessage", params, options)).result?.task as WireTask;
}

/** A blocking v0.3 `message/send` of `message` (see {@link v03Message}); its JSON-RPC answer. */
export function sendV03<T = Record<string, unknown>>(
  message: Record<string, unknown>,
  options: RpcOptions = {},
): Promise<RpcResponse<T>> {
  return rpc<T>(
    "message/send",
    { message, configuration: { blocking: true } },
    { ...options, v03: true },
  );
}

/** A user message with text parts. */
export function userMessage(
  text: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra };
}

/**
 * A v0.3 user message (`kind` fields, lowercase role) of one part: text, or data when `content`
 * is an object.
 */
export function v03Message(
  content: string | Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const part =
    typeof content === "string" ? { kind: "text", text: content } : { kind: "data", data: content };
  return { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [part], ...extra };
}

/** The JSON error body the Worker answers outside JSON-RPC (REST, webhooks, admin routes). */
export const errorBody = (code: number, status: string, message: string) => ({
  error: { code, status, message },
});

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

/** Asserts that `task` completed with `answer` as its answer text. */
export function expectCompleted(task: WireTask, answer: string): void {
  expect(task.status.state).toBe("TASK_STATE_COMPLETED");
  expect(answerText(task)).toBe(answer);
}
