/**
 * The scripted Anthropic Messages API as a pure Web fetch handler (Request -> Response), for
 * tests (served over HTTP by test/fake-model/server.ts) and for keyless runs of the Worker
 * (passed to `new Anthropic({ fetch })`). Serves `POST /v1/messages` (auth, minimal
 * validation, a prompt its model's context window cannot hold refused as the API refuses it,
 * scenario or directive turns, streamed or complete, or a recorded stream replayed verbatim) and
 * a control API under `/_scripted/` (scenarios, request log, reset, health). No Node APIs.
 */
import { z } from "zod";
import { contextWindowOf } from "../context-window.ts";
import { directiveTurn, findScenarioId, turnIndexOf } from "./directives.ts";
import { completeTurn, type PlayContext, streamTurn } from "./play.ts";
import { type RecordingSource, recordingFor, replayRecording } from "./recorded.ts";
import { apiError, type MessagesRequest, statusForErrorType, validateRequest } from "./request.ts";
import { type LoggedRequest, ScenarioStore } from "./store.ts";
import { type ErrorSpec, ScenarioSchema, type Turn } from "./turn.ts";

export type { RecordingSource } from "./recorded.ts";
export type { LoggedRequest } from "./store.ts";
export { ScenarioStore } from "./store.ts";
export type { Scenario, Turn } from "./turn.ts";
export { ScenarioSchema, TurnSchema } from "./turn.ts";

/** Options of `createScriptedMessagesApi`. */
export interface ScriptedMessagesApiOptions {
  /** Shared state; a fresh store when omitted. */
  store?: ScenarioStore;
  /** Clock for request log timestamps (ms since the epoch). */
  now?: () => number;
  /** Recorded SSE streams a turn may replay (`recorded`); none when omitted. */
  recordings?: RecordingSource;
}

/** A fetch-style handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

const DEFAULT_ERROR_MESSAGES: Record<string, string> = {
  overloaded_error: "Overloaded",
  rate_limit_error: "Number of requests has exceeded your rate limit",
  api_error: "Internal server error",
};

function loggedHeaders(headers: Headers): LoggedRequest["headers"] {
  const out: LoggedRequest["headers"] = {};
  if (headers.has("authorization")) out.authorization = "<set>";
  if (headers.has("x-api-key")) out["x-api-key"] = "<set>";
  const version = headers.get("anthropic-version");
  if (version !== null) out["anthropic-version"] = version;
  return out;
}

function isAuthenticated(headers: Headers): boolean {
  if ((headers.get("x-api-key") ?? "").trim() !== "") return true;
  return /^Bearer\s+\S+/i.test(headers.get("authorization") ?? "");
}

function estimateInputTokens(request: MessagesRequest): number {
  const system =
    typeof request.system === "string"
      ? request.system.length
      : request.system === undefined
        ? 0
        : JSON.stringify(request.system).length;
  return Math.ceil((system + JSON.stringify(request.messages).length) / 4);
}

/**
 * The API's answer to a prompt its model's context window cannot hold (a 400
 * `invalid_request_error`, "prompt is too long: N tokens > W maximum"), or null when it fits.
 * Tokens are estimated as four characters each, the same count usage reports.
 */
function promptTooLong(request: MessagesRequest): Response | null {
  const tokens = estimateInputTokens(request);
  const window = contextWindowOf(request.model);
  return tokens > window
    ? apiError(
        400,
        "invalid_request_error",
        `prompt is too long: ${tokens} tokens > ${window} maximum`,
      )
    : null;
}

function scriptedError(spec: ErrorSpec): Response {
  const headers: Record<string, string> = {};
  if (spec.retryAfter !== undefined) headers["retry-after"] = String(spec.retryAfter);
  if (spec.retryAfterMs !== undefined) headers["retry-after-ms"] = String(spec.retryAfterMs);
  const message = spec.message ?? DEFAULT_ERROR_MESSAGES[spec.type] ?? spec.type;
  return apiError(spec.status, spec.type, message, headers);
}

interface Selection {
  scenario: string | null;
  turnIndex: number;
  turn: Turn;
  /** Error to answer on every attempt (default mode `[[error:STATUS]]`). */
  alwaysError?: ErrorSpec;
}

function selectTurn(request: MessagesRequest, store: ScenarioStore): Selection | Response {
  const scenarioId = findScenarioId(request);
  if (scenarioId === null)
    return { scenario: null, turnIndex: turnIndexOf(request), ...directiveTurn(request) };
  const scenario = store.getScenario(scenarioId);
  if (!scenario) {
    return apiError(400, "invalid_request_error", `unknown scripted scenario '${scenarioId}'`);
  }
  const turnIndex = scenario.inOrder
    ? store.nextInOrder(scenarioId, request.stream === true)
    : turnIndexOf(request);
  const turn = scenario.turns[turnIndex] ?? {
    text: `(scripted scenario ${scenarioId} has no more turns)`,
  };
  return { scenario: scenarioId, turnIndex, turn };
}

async function handleMessages(
  request: Request,
  store: ScenarioStore,
  now: () => number,
  recordings: RecordingSource | undefined,
): Promise<Response> {
  const entry: LoggedRequest = {
    at: now(),
    scenario: null,
    turnIndex: -1,
    attempt: 0,
    status: 0,
    headers: loggedHeaders(request.headers),
    body: null,
    bodyText: "",
  };
  const finish = (response: Response): Response => {
    entry.status = response.status;
    store.logRequest(entry);
    return response;
  };
  const raw = await request.text();
  entry.bodyText = raw;
  let body: unknown;
  try {
    body = JSON.parse(raw);
    entry.body = body;
  } catch {
    body = undefined;
  }
  if (!isAuthenticated(request.headers)) {
    return finish(
      apiError(
        401,
        "authentication_error",
        "invalid x-api-key: send an x-api-key header or Authorization: Bearer <key>",
      ),
    );
  }
  if (body === undefined) {
    return finish(apiError(400, "invalid_request_error", "request body is not valid JSON"));
  }
  const validation = validateRequest(body);
  if (!validation.ok) {
    return finish(apiError(400, "invalid_request_error", validation.message));
  }
  const parsed = validation.request;
  const selection = selectTurn(parsed, store);
  if (selection instanceof Response) return finish(selection);
  entry.scenario = selection.scenario;
  entry.turnIndex = selection.turnIndex;
  const attempt = store.nextAttempt(selection.scenario, selection.turnIndex);
  entry.attempt = attempt;
  // Logged under its scenario and attempt, so a test can count that it was not retried.
  const tooLong = promptTooLong(parsed);
  if (tooLong) return finish(tooLong);

  const failure = selection.alwaysError ?? selection.turn.errors?.[attempt - 1];
  if (failure) return finish(scriptedError(failure));
  const recording = recordingFor(selection.turn, attempt, parsed.stream === true, recordings);
  if (recording instanceof Response) return finish(recording);
  if (recording !== null)
    return finish(replayRecording(recording, { signal: request.signal, store }));

  const ctx: PlayContext = {
    messageId: store.nextMessageId(),
    model: parsed.model,
    inputTokens: estimateInputTokens(parsed),
    attempt,
    signal: request.signal,
    store,
  };
  if (parsed.stream) return finish(streamTurn(selection.turn, ctx));
  const result = await completeTurn(selection.turn, ctx);
  if ("error" in result) {
    const { type, message } = result.error;
    return finish(apiError(statusForErrorType(type), type, message));
  }
  return finish(Response.json(result.message));
}

async function handleControl(
  request: Request,
  path: string,
  url: URL,
  store: ScenarioStore,
): Promise<Response> {
  const route = `${request.method} ${path}`;
  if (route === "GET /_scripted/health") {
    return Response.json({ ok: true, activeStreams: store.activeStreams });
  }
  if (route === "POST /_scripted/reset") {
    store.reset();
    return Response.json({ ok: true });
  }
  if (route === "GET /_scripted/requests") {
    const scenario = url.searchParams.get("scenario") ?? undefined;
    return Response.json({ requests: store.requests(scenario) });
  }
  if (route === "POST /_scripted/scenarios") {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return apiError(400, "invalid_request_error", "scenario body is not valid JSON");
    }
    const parsed = ScenarioSchema.safeParse(body);
    if (!parsed.success) {
      return Response.json(
        {
          type: "error",
          error: { type: "invalid_request_error", message: z.prettifyError(parsed.error) },
          issues: parsed.error.issues,
        },
        { status: 400 },
      );
    }
    store.addScenario(parsed.data);
    return Response.json({ id: parsed.data.id }, { status: 201 });
  }
  return apiError(404, "not_found_error", `no scripted control route ${route}`);
}

/**
 * Creates the scripted Messages API handler. Pass the same `store` to inspect or script it
 * in-process; otherwise use the `/_scripted/` control routes.
 */
export function createScriptedMessagesApi(options: ScriptedMessagesApiOptions = {}): FetchHandler {
  const store = options.store ?? new ScenarioStore();
  const now = options.now ?? (() => Date.now());
  return async (request) => {
    const url = new URL(request.url);
    const path =
      url.pathname.length > 1 && url.pathname.endsWith("/")
        ? url.pathname.slice(0, -1)
        : url.pathname;
    if (path.startsWith("/_scripted/")) return handleControl(request, path, url, store);
    if (path === "/v1/messages" && request.method === "POST") {
      return handleMessages(request, store, now, options.recordings);
    }
    if (path === "/v1/models" && request.method === "GET") {
      // Enough of the Models API for a reachability check.
      const model = {
        type: "model",
        id: "scripted",
        display_name: "Scripted local model (not Claude)",
        created_at: "2026-01-01T00:00:00Z",
      };
      return Response.json({
        data: [model],
        has_more: false,
        first_id: "scripted",
        last_id: "scripted",
      });
    }
    return apiError(404, "not_found_error", `Not found: ${request.method} ${url.pathname}`);
  };
}
