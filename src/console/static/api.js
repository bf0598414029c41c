// The console's client of the harness: the REST API (`/api/...`), the files API's bytes, A2A v1.0
// JSON-RPC calls, and JSON-RPC streams (SendStreamingMessage, SubscribeToTask) read as SSE with
// their event ids, so a dropped stream can resume with Last-Event-ID. Every request carries the
// signed-in token, and each one and its answer is recorded for the Raw pane (exchanges.js).
import { stateWord, TERMINAL_STATES } from "../../protocol/task-states.ts";
import { bodyRecord, record } from "./exchanges.js";
import { t } from "./i18n/i18n.js";
import { sseEvents } from "./sse.ts";

const TOKEN_KEY = "a2a-token";
let rpcId = 0;

/** The token the person signed in with ("" when none). */
export const auth = {
  get token() {
    return localStorage.getItem(TOKEN_KEY) || "";
  },
  set token(value) {
    if (value) localStorage.setItem(TOKEN_KEY, value);
    else localStorage.removeItem(TOKEN_KEY);
  },
};

function headers(extra = {}) {
  const token = auth.token;
  return {
    "A2A-Version": "1.0",
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    ...extra,
  };
}

/** An error with the HTTP status (0 when the server could not be reached). */
function failure(message, status) {
  return Object.assign(new Error(message), { status });
}

/** `fetch` with the token, recorded (the answer is recorded by the caller); throws when unreachable. */
async function send(path, init, recorded) {
  try {
    return await fetch(path, { ...init, headers: headers(init.headers) });
  } catch (error) {
    recorded.answered(0, { error: t("cannotReach") });
    if (error?.name === "AbortError") throw error;
    throw failure(t("cannotReach"), 0);
  }
}

/** Calls the REST API; resolves with the JSON body (null for 204), throws with `status`. */
export async function api(path, init = {}) {
  const recorded = record(init.method ?? "GET", path, bodyRecord(init.body));
  const response = await send(path, init, recorded);
  if (response.status === 204) {
    recorded.answered(204, null);
    return null;
  }
  const body = await response.json().catch(() => ({}));
  recorded.answered(response.status, body);
  if (!response.ok)
    throw failure(
      body?.error?.message || response.statusText || `HTTP ${response.status}`,
      response.status,
    );
  return body;
}

/**
 * A request whose answer is bytes (a file of the files API): resolves with the Response when it
 * is 2xx, throws with the server's message and `status` otherwise.
 */
export async function apiBytes(path, init = {}) {
  const recorded = record(init.method ?? "GET", path, bodyRecord(init.body));
  const response = await send(path, init, recorded);
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    recorded.answered(response.status, body);
    throw failure(body?.error?.message || `HTTP ${response.status}`, response.status);
  }
  // A download's answer is the file (kept as its size and type); an upload's, its JSON entry.
  const download = (init.method ?? "GET") === "GET";
  const length = response.headers.get("content-length");
  const type = response.headers.get("content-type") ?? "";
  recorded.answered(
    response.status,
    download
      ? { bytes: length === null ? "?" : Number(length), type }
      : await response
          .clone()
          .json()
          .catch(() => null),
  );
  return response;
}

/** One JSON-RPC call to an agent's endpoint; resolves with the result, throws the error. */
export async function rpc(agent, method, params) {
  const path = `/agents/${encodeURIComponent(agent)}/`;
  const request = { jsonrpc: "2.0", id: ++rpcId, method, params };
  const recorded = record("POST", path, request);
  const response = await send(
    path,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    },
    recorded,
  );
  const body = await response.json().catch(() => ({}));
  recorded.answered(response.status, body);
  if (body.error) throw failure(`${body.error.message} (${body.error.code})`, response.status);
  if (!response.ok) throw failure(`HTTP ${response.status}`, response.status);
  return body.result;
}

/**
 * A streaming JSON-RPC call: `onEvent(result, seq)` for each StreamResponse, in order. Resolves
 * when the server ends the stream; rejects on a JSON-RPC error, a dropped connection or `signal`.
 * `lastEventId` asks the server for the events after it only (SubscribeToTask after a drop).
 */
export async function stream(agent, method, params, { onEvent, signal, lastEventId } = {}) {
  const path = `/agents/${encodeURIComponent(agent)}/`;
  const request = { jsonrpc: "2.0", id: ++rpcId, method, params };
  const recorded = record("POST", path, request);
  const response = await fetch(path, {
    method: "POST",
    signal,
    headers: headers({
      "content-type": "application/json",
      Accept: "text/event-stream",
      ...(lastEventId ? { "Last-Event-ID": String(lastEventId) } : {}),
    }),
    body: JSON.stringify(request),
  });
  if (!response.ok || !response.body) {
    const body = await response.json().catch(() => ({}));
    recorded.answered(response.status, body);
    throw failure(body?.error?.message || `HTTP ${response.status}`, response.status);
  }
  if (!(response.headers.get("content-type") || "").includes("text/event-stream")) {
    const body = await response.json().catch(() => ({}));
    recorded.answered(response.status, body);
    throw failure(body?.error ? `${body.error.message} (${body.error.code})` : t("notStream"), 400);
  }
  recorded.answered(response.status, null);
  for await (const event of sseEvents(response.body)) {
    const id = event.id?.trim();
    const body = JSON.parse(event.data);
    recorded.event(body);
    if (body.error) throw failure(`${body.error.message} (${body.error.code})`, 200);
    onEvent?.(body.result, id ? Number(id) : null);
  }
}

/** The text of a message or artifact (its text parts, joined). */
export const textOf = (m) =>
  (m?.parts || [])
    .filter((p) => typeof p.text === "string")
    .map((p) => p.text)
    .join("");

/** A state as a word: "TASK_STATE_INPUT_REQUIRED" -> "input-required" (protocol/task-states.ts). */
export const stateName = stateWord;

/** The words of the states after which a task changes no more. */
export const TERMINAL = new Set([...TERMINAL_STATES].map(stateWord));
