/**
 * Sorts what a model call can throw into retryable and fatal, each of a {@link FaultKind}, with a
 * message fit for the client that always names the cause (never a stack trace) and the server's
 * `retry-after-ms` or `retry-after` when it sent one. A stream cut short (an `error` event inside
 * it, its connection dropped, its end before `message_stop`: {@link streamFault}) is a fault of
 * its own, retried as often as the others but counted apart; a stream the SDK could not parse
 * (events out of order, a line that is not JSON) is retried once: a glitch on the way, not an
 * answer. Pure: no I/O.
 */
import {
  AnthropicError,
  APIConnectionError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk/core/error";

/** The model stream went silent longer than the watchdog allows. */
export class ModelStallError extends Error {
  override readonly name = "ModelStallError";
  readonly idleMs: number;
  constructor(idleMs: number) {
    super(`the model stream stalled (no data for ${idleMs} ms)`);
    this.idleMs = idleMs;
  }
}

/** The model stream was cut short: an `error` event in it, its connection lost, no `message_stop`. */
export class ModelStreamCutError extends Error {
  override readonly name = "ModelStreamCutError";
  constructor(detail: string, cause?: unknown) {
    super(`the model stream was cut (${detail})`, cause === undefined ? undefined : { cause });
  }
}

/** No model is configured (no key and the scripted model is off). */
export class ModelUnavailableError extends Error {
  override readonly name = "ModelUnavailableError";
}

/** What kind of fault a failed model call was (its retries are counted by kind). */
export type FaultKind =
  | "overloaded"
  | "rate_limited"
  | "server_error"
  | "connection"
  | "stall"
  | "cut"
  | "malformed"
  | "fatal";

/** Every kind of fault, in the order a task's failure message lists them. */
export const FAULT_KINDS: readonly FaultKind[] = [
  "overloaded",
  "rate_limited",
  "server_error",
  "connection",
  "stall",
  "cut",
  "malformed",
  "fatal",
];

/** How a kind of fault is named where a task says how often each happened. */
export const FAULT_NAMES: Readonly<Record<FaultKind, string>> = {
  overloaded: "overloaded",
  rate_limited: "rate limited",
  server_error: "server error",
  connection: "connection error",
  stall: "stalled stream",
  cut: "cut stream",
  malformed: "malformed stream",
  fatal: "refused",
};

/** How the loop should treat a failed model call. */
export interface ModelFailure {
  kind: FaultKind;
  retryable: boolean;
  /** Short, client-safe description. */
  message: string;
  /** Server-requested delay before the next attempt, in ms. */
  retryAfterMs?: number;
  /** At most this many retries, whatever `MODEL_MAX_RETRIES` allows. */
  retryLimit?: number;
}

/** Retries of a malformed stream (the SDK's "Unexpected event order" and other parse errors). */
export const MALFORMED_STREAM_RETRIES = 1;

/** Most characters of an SDK or runtime message quoted to the client. */
const CAUSE_CHARS = 300;

/** `error`'s own message, on one line and bounded. */
function causeOf(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > CAUSE_CHARS ? `${line.slice(0, CAUSE_CHARS)}…` : line || "no detail";
}

const RETRYABLE_TYPES = new Set([
  "overloaded_error",
  "api_error",
  "rate_limit_error",
  "timeout_error",
]);

function errorType(error: APIError): string | undefined {
  const body = error.error as { error?: { type?: unknown } } | undefined;
  const type = body?.error?.type;
  return typeof type === "string" ? type : undefined;
}

/** The longest wait a server's retry header is taken for. */
const MAX_RETRY_AFTER_MS = 120_000;

/**
 * The wait the server asked for: `retry-after-ms` (milliseconds), else `retry-after` (seconds, or
 * an HTTP date), at most {@link MAX_RETRY_AFTER_MS}; `now` reads a date against the clock.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(date - now, 0), MAX_RETRY_AFTER_MS);
}

/** The kind of a retryable API answer. */
function apiFaultKind(status: number | undefined, type: string | undefined): FaultKind {
  if (status === 529 || type === "overloaded_error") return "overloaded";
  if (status === 429 || type === "rate_limit_error") return "rate_limited";
  return "server_error";
}

/** A parse failure of the SDK: events out of order, or a line that is not JSON. */
function isMalformed(error: AnthropicError): boolean {
  return error.message.startsWith("Unexpected event order") || error.cause instanceof SyntaxError;
}

/**
 * What a failure while a stream is read means: an `error` event inside it, a dropped connection
 * or an end before `message_stop` is a cut stream ({@link ModelStreamCutError}); an API answer
 * before the stream (an HTTP error), an abort, a connection that never opened and a stream the
 * SDK cannot parse stay what they are.
 */
export function streamFault(error: unknown): unknown {
  if (error instanceof APIError && error.status === undefined) {
    const body = error.error as { error?: { type?: unknown; message?: unknown } } | undefined;
    const detail = [body?.error?.type, body?.error?.message].filter((v) => typeof v === "string");
    return new ModelStreamCutError(`an error event: ${detail.join(": ") || "no detail"}`, error);
  }
  if (error instanceof APIError || error instanceof APIUserAbortError) return error;
  if (error instanceof ModelStallError || error instanceof ModelUnavailableError) return error;
  if (error instanceof AnthropicError && isMalformed(error)) return error;
  if (error instanceof AnthropicError && error.message.startsWith("stream ended without"))
    return new ModelStreamCutError("it ended before message_stop", error);
  return new ModelStreamCutError(causeOf(error), error);
}

/** Classifies a thrown model error. */
export function classifyModelError(error: unknown): ModelFailure {
  if (error instanceof ModelStallError)
    return { kind: "stall", retryable: true, message: error.message };
  if (error instanceof ModelStreamCutError)
    return { kind: "cut", retryable: true, message: error.message };
  if (error instanceof ModelUnavailableError)
    return { kind: "fatal", retryable: false, message: error.message };
  if (error instanceof APIUserAbortError)
    return { kind: "fatal", retryable: false, message: "the model call was aborted" };
  if (error instanceof APIConnectionError) {
    return {
      kind: "connection",
      retryable: true,
      message: "could not reach the model API (connection error)",
    };
  }
  if (error instanceof APIError) {
    const status = error.status;
    const type = errorType(error);
    const label = [type, status].filter((v) => v !== undefined).join(", ");
    if (status === 401) {
      return {
        kind: "fatal",
        retryable: false,
        message: "the model API rejected the API key (401): check ANTHROPIC_API_KEY",
      };
    }
    if (status === 403)
      return { kind: "fatal", retryable: false, message: "the model API refused access (403)" };
    if (status === 404)
      return {
        kind: "fatal",
        retryable: false,
        message: "the model API does not know this model (404)",
      };
    if (
      status === 429 ||
      status === 408 ||
      (status !== undefined && status >= 500) ||
      (type && RETRYABLE_TYPES.has(type))
    ) {
      const after = retryAfterMs(error.headers);
      return {
        kind: apiFaultKind(status, type),
        retryable: true,
        message: `the model API is unavailable (${label})`,
        ...(after === undefined ? {} : { retryAfterMs: after }),
      };
    }
    const detail = (error.error as { error?: { message?: unknown } } | undefined)?.error?.message;
    return {
      kind: "fatal",
      retryable: false,
      message: `the model API rejected the request (${label})${typeof detail === "string" ? `: ${detail.slice(0, 300)}` : ""}`,
    };
  }
  // The SDK's own errors that are not API answers: the stream could not be read as one message.
  if (error instanceof AnthropicError) {
    return {
      kind: "malformed",
      retryable: true,
      retryLimit: MALFORMED_STREAM_RETRIES,
      message: `the model stream was malformed (${causeOf(error)})`,
    };
  }
  const name = error instanceof Error && error.name !== "Error" ? `${error.name}: ` : "";
  return {
    kind: "fatal",
    retryable: false,
    message: `the model call failed unexpectedly (${name}${causeOf(error)})`,
  };
}

/**
 * Delay before retry `attempt` (1-based): exponential from `baseMs`, capped at 60 s, with up to
 * 20% jitter; a server's `retry-after` wins when longer.
 */
export function backoffMs(
  attempt: number,
  baseMs: number,
  retryAfterMs?: number,
  random = Math.random,
): number {
  const exponential = Math.min(baseMs * 2 ** (attempt - 1), 60_000);
  const jittered = Math.round(exponential * (1 + 0.2 * random()));
  return Math.max(jittered, retryAfterMs ?? 0);
}
