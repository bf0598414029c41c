/**
 * Sorts what a model call can throw into retryable and fatal, with a message fit for the client
 * that always names the cause (never a stack trace) and the server's `retry-after` when it sent
 * one. A stream the SDK could not parse (events out of order, a line that is not JSON, no
 * message at all) is retried once: a glitch on the way, not an answer. Pure: no I/O.
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

/** No model is configured (no key and the scripted model is off). */
export class ModelUnavailableError extends Error {
  override readonly name = "ModelUnavailableError";
}

/** How the loop should treat a failed model call. */
export interface ModelFailure {
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

function retryAfter(error: APIError): number | undefined {
  const value = error.headers?.get?.("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 120_000) : undefined;
}

/** Classifies a thrown model error. */
export function classifyModelError(error: unknown): ModelFailure {
  if (error instanceof ModelStallError) return { retryable: true, message: error.message };
  if (error instanceof ModelUnavailableError) return { retryable: false, message: error.message };
  if (error instanceof APIUserAbortError)
    return { retryable: false, message: "the model call was aborted" };
  if (error instanceof APIConnectionError) {
    return { retryable: true, message: "could not reach the model API (connection error)" };
  }
  if (error instanceof APIError) {
    const status = error.status;
    const type = errorType(error);
    const label = [type, status].filter((v) => v !== undefined).join(", ");
    if (status === 401) {
      return {
        retryable: false,
        message: "the model API rejected the API key (401): check ANTHROPIC_API_KEY",
      };
    }
    if (status === 403) return { retryable: false, message: "the model API refused access (403)" };
    if (status === 404)
      return { retryable: false, message: "the model API does not know this model (404)" };
    if (
      status === 429 ||
      status === 408 ||
      (status !== undefined && status >= 500) ||
      (type && RETRYABLE_TYPES.has(type))
    ) {
      const after = retryAfter(error);
      return {
        retryable: true,
        message: `the model API is unavailable (${label})`,
        ...(after === undefined ? {} : { retryAfterMs: after }),
      };
    }
    const detail = (error.error as { error?: { message?: unknown } } | undefined)?.error?.message;
    return {
      retryable: false,
      message: `the model API rejected the request (${label})${typeof detail === "string" ? `: ${detail.slice(0, 300)}` : ""}`,
    };
  }
  // The SDK's own errors that are not API answers: the stream could not be read as one message.
  if (error instanceof AnthropicError) {
    return {
      retryable: true,
      retryLimit: MALFORMED_STREAM_RETRIES,
      message: `the model stream was malformed (${causeOf(error)})`,
    };
  }
  const name = error instanceof Error && error.name !== "Error" ? `${error.name}: ` : "";
  return {
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
