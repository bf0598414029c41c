/**
 * Runs ACTS operations over the two HTTP bindings of A2A v1.0 and reads the answers back as
 * outcomes: JSON-RPC (one POST to the agent's endpoint, the envelope unwrapped; SSE events each an
 * envelope) and HTTP+JSON (spec 1.0.1 §11.3 paths under the agent's base URL; errors as
 * google.rpc.Status). Every call sends `A2A-Version` and, when the runner holds one, its bearer
 * token. An outcome's root is what ACTS assertions see (§4.2): the domain object in the abstract
 * view (wire.ts), or `{ error }` for a failure; a stream's events come as StreamResponse objects.
 * Raw steps send exactly the request written, to a path under the agent's base URL. Node only.
 */
import { jsonRpcErrorName, restErrorName } from "./errors.ts";
import { isMap, type Json } from "./json.ts";
import { readSse } from "./sse.ts";
import { abstractView, type OperationKind, wireParams } from "./wire.ts";

/** Where the system under test is and how the runner speaks to it. */
export interface Target {
  /** The agent's JSON-RPC endpoint (its base URL, with a trailing slash). */
  endpoint: string;
  /** The A2A version sent in `A2A-Version` (the document's `spec_version`). */
  version: string;
  /** The bearer token the runner authenticates with, if any. */
  token?: string;
}

/** A failure as the binding reported it. */
export interface OutcomeError {
  /** The A2A error's name (`TaskNotFoundError`), or null when the answer names none. */
  name: string | null;
  code?: unknown;
  message?: unknown;
  /** JSON-RPC `error.data`, or HTTP+JSON `error.details`. */
  data?: unknown;
}

/** What an operation or a raw request gave back. */
export interface Outcome {
  httpStatus: number;
  headers: Headers;
  /** The assertion root: the answer (abstract view), or `{ error }` for a failure. */
  root: unknown;
  error: OutcomeError | null;
  /** A stream's events, in order; null for an answer that is not a stream. */
  events: unknown[] | null;
  /** Whether the server closed the stream itself (false: the runner stopped waiting). */
  closed: boolean;
}

const JSONRPC_METHODS: Readonly<Partial<Record<OperationKind, string>>> = {
  send: "SendMessage",
  stream: "SendStreamingMessage",
  get: "GetTask",
  list: "ListTasks",
  cancel: "CancelTask",
  subscribe: "SubscribeToTask",
  extendedCard: "GetExtendedAgentCard",
  createPush: "CreateTaskPushNotificationConfig",
  getPush: "GetTaskPushNotificationConfig",
  listPush: "ListTaskPushNotificationConfigs",
  deletePush: "DeleteTaskPushNotificationConfig",
};

/** The HTTP+JSON base URL: the endpoint without its trailing slash (spec 1.0.1 §11.3). */
export const restBase = (target: Target) => target.endpoint.replace(/\/+$/, "");

const isStream = (response: Response) =>
  (response.headers.get("content-type") ?? "").startsWith("text/event-stream");

function headers(target: Target, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "A2A-Version": target.version,
    ...(target.token ? { Authorization: `Bearer ${target.token}` } : {}),
    ...extra,
  };
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const failed = (response: Response, root: unknown, error: OutcomeError): Outcome => ({
  httpStatus: response.status,
  headers: response.headers,
  root,
  error,
  events: null,
  closed: true,
});

const succeeded = (response: Response, result: unknown): Outcome => ({
  httpStatus: response.status,
  headers: response.headers,
  root: abstractView(result ?? {}),
  error: null,
  events: null,
  closed: true,
});

/** A JSON-RPC error member as an outcome error. */
function rpcError(error: unknown): OutcomeError {
  const e = isMap(error) ? error : {};
  return { name: jsonRpcErrorName(e.code), code: e.code, message: e.message, data: e.data };
}

/** A JSON-RPC stream: each event an envelope; an error event ends it as a failure. */
async function rpcStream(response: Response, timeoutMs: number): Promise<Outcome> {
  const read = await readSse(response, timeoutMs);
  const events: unknown[] = [];
  for (const data of read.data) {
    const parsed: unknown = JSON.parse(data);
    const envelope = isMap(parsed) ? parsed : {};
    if (envelope.error !== undefined)
      return { ...failed(response, { error: envelope.error }, rpcError(envelope.error)), events };
    events.push(abstractView(envelope.result));
  }
  return { ...succeeded(response, events.at(-1)), events, closed: read.closed };
}

async function callJsonRpc(
  kind: OperationKind,
  params: Json,
  target: Target,
  timeoutMs: number,
): Promise<Outcome> {
  const method = JSONRPC_METHODS[kind];
  if (!method) throw new Error(`no JSON-RPC method for ${kind}`);
  const streaming = kind === "stream" || kind === "subscribe";
  const response = await fetch(target.endpoint, {
    method: "POST",
    headers: headers(target, {
      "content-type": "application/json",
      ...(streaming ? { accept: "text/event-stream" } : {}),
    }),
    body: JSON.stringify({ jsonrpc: "2.0", id: crypto.randomUUID(), method, params }),
  });
  if (isStream(response)) return rpcStream(response, timeoutMs);
  const envelope = await bodyOf(response);
  const e = isMap(envelope) ? envelope : {};
  if (e.error !== undefined) return failed(response, { error: e.error }, rpcError(e.error));
  if (!isMap(envelope) || !("result" in envelope))
    return failed(response, envelope, {
      name: null,
      message: `not a JSON-RPC answer (HTTP ${response.status})`,
    });
  return succeeded(response, e.result);
}

/** The HTTP+JSON request of an operation: method, path under the base, query, body. */
function restRequest(
  kind: OperationKind,
  params: Json,
): { method: string; path: string; body?: Json } {
  const { id, taskId, ...rest } = params;
  const task = encodeURIComponent(String(kind.endsWith("Push") ? taskId : id));
  const config = encodeURIComponent(String(id));
  const query = (values: Json) => {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(values))
      if (v !== undefined && v !== null && typeof v !== "object") search.set(k, String(v));
    const text = search.toString();
    return text ? `?${text}` : "";
  };
  switch (kind) {
    case "send":
      return { method: "POST", path: "/message:send", body: params };
    case "stream":
      return { method: "POST", path: "/message:stream", body: params };
    case "get":
      return { method: "GET", path: `/tasks/${task}${query(rest)}` };
    case "list":
      return { method: "GET", path: `/tasks${query(params)}` };
    case "cancel":
      return { method: "POST", path: `/tasks/${task}:cancel`, body: rest };
    case "subscribe":
      return { method: "POST", path: `/tasks/${task}:subscribe`, body: rest };
    case "extendedCard":
      return { method: "GET", path: "/extendedAgentCard" };
    case "createPush":
      return { method: "POST", path: `/tasks/${task}/pushNotificationConfigs`, body: params };
    case "getPush":
      return { method: "GET", path: `/tasks/${task}/pushNotificationConfigs/${config}` };
    case "listPush":
      return { method: "GET", path: `/tasks/${task}/pushNotificationConfigs` };
    default:
      return { method: "DELETE", path: `/tasks/${task}/pushNotificationConfigs/${config}` };
  }
}

async function callRest(
  kind: OperationKind,
  params: Json,
  target: Target,
  timeoutMs: number,
): Promise<Outcome> {
  const request = restRequest(kind, params);
  const response = await fetch(`${restBase(target)}${request.path}`, {
    method: request.method,
    headers: headers(target, {
      ...(request.body ? { "content-type": "application/json" } : {}),
      ...(kind === "stream" || kind === "subscribe" ? { accept: "text/event-stream" } : {}),
    }),
    ...(request.body ? { body: JSON.stringify(request.body) } : {}),
  });
  if (response.ok && isStream(response)) {
    const read = await readSse(response, timeoutMs);
    const events = read.data.map((d) => abstractView(JSON.parse(d)));
    return { ...succeeded(response, events.at(-1)), events, closed: read.closed };
  }
  const body = await bodyOf(response);
  if (!response.ok) {
    const error = isMap(body) && isMap(body.error) ? body.error : {};
    return failed(response, body, {
      name: restErrorName(response.status, body),
      code: error.code ?? response.status,
      message: error.message,
      data: error.details,
    });
  }
  return succeeded(response, body);
}

/** Runs operation `kind` with a step's (abstract) params on `binding`. */
export async function callOperation(
  binding: "jsonrpc" | "rest",
  kind: OperationKind,
  params: Json,
  target: Target,
  timeoutMs: number,
): Promise<Outcome> {
  if (kind === "card") {
    const response = await fetch(`${restBase(target)}/.well-known/agent-card.json`, {
      headers: headers(target),
    });
    const body = await bodyOf(response);
    return response.ok
      ? succeeded(response, body)
      : failed(response, body, { name: restErrorName(response.status, body) });
  }
  const wire = wireParams(kind, params);
  return binding === "jsonrpc"
    ? callJsonRpc(kind, wire, target, timeoutMs)
    : callRest(kind, wire, target, timeoutMs);
}

/** A raw step's request. */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  body_raw?: string;
}

/**
 * Sends a raw request as written (its headers; the runner's token only when `authenticate`);
 * the root is the answer's body as it came, and a stream's events are its parsed `data`.
 */
export async function sendRaw(
  raw: RawRequest,
  target: Target,
  authenticate: boolean,
  timeoutMs: number,
): Promise<Outcome> {
  const body = raw.body_raw ?? (raw.body !== undefined ? JSON.stringify(raw.body) : undefined);
  const response = await fetch(`${restBase(target)}${raw.path}`, {
    method: raw.method,
    headers: {
      ...(authenticate && target.token ? { Authorization: `Bearer ${target.token}` } : {}),
      ...raw.headers,
    },
    ...(body !== undefined ? { body } : {}),
  });
  if (isStream(response)) {
    const read = await readSse(response, timeoutMs);
    const events = read.data.map((d) => JSON.parse(d) as unknown);
    return {
      httpStatus: response.status,
      headers: response.headers,
      root: events.at(-1),
      error: null,
      events,
      closed: read.closed,
    };
  }
  const parsed = await bodyOf(response);
  return {
    httpStatus: response.status,
    headers: response.headers,
    root: parsed,
    error: null,
    events: null,
    closed: true,
  };
}
