// The console's client of the harness: the REST API (`/api/...`), A2A v1.0 JSON-RPC calls, and
// JSON-RPC streams (SendStreamingMessage, SubscribeToTask) read as SSE with their event ids, so a
// dropped stream can resume with Last-Event-ID. Every request carries the signed-in token.
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

/** Calls the REST API; resolves with the JSON body (null for 204), throws with `status`. */
export async function api(path, init = {}) {
  let response;
  try {
    response = await fetch(path, { ...init, headers: headers(init.headers) });
  } catch {
    throw failure(t("cannotReach"), 0);
  }
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({}));
  if (!response.ok)
    throw failure(
      body?.error?.message || response.statusText || `HTTP ${response.status}`,
      response.status,
    );
  return body;
}

/** One JSON-RPC call to an agent's endpoint; resolves with the result, throws the error. */
export async function rpc(agent, method, params) {
  const response = await fetch(`/agents/${encodeURIComponent(agent)}/`, {
    method: "POST",
    headers: headers({ "content-type": "application/json" }),
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  const body = await response.json().catch(() => ({}));
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
  const response = await fetch(`/agents/${encodeURIComponent(agent)}/`, {
    method: "POST",
    signal,
    headers: headers({
      "content-type": "application/json",
      Accept: "text/event-stream",
      ...(lastEventId ? { "Last-Event-ID": String(lastEventId) } : {}),
    }),
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  if (!response.ok || !response.body) {
    const body = await response.json().catch(() => ({}));
    throw failure(body?.error?.message || `HTTP ${response.status}`, response.status);
  }
  if (!(response.headers.get("content-type") || "").includes("text/event-stream")) {
    const body = await response.json().catch(() => ({}));
    throw failure(body?.error ? `${body.error.message} (${body.error.code})` : t("notStream"), 400);
  }
  for await (const event of sseEvents(response.body)) {
    const id = event.id?.trim();
    const body = JSON.parse(event.data);
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

/** "TASK_STATE_INPUT_REQUIRED" -> "input-required". */
export const stateName = (s) =>
  String(s || "")
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replaceAll("_", "-");

/** States after which a task changes no more. */
export const TERMINAL = new Set(["completed", "failed", "canceled", "rejected"]);
