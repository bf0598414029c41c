/**
 * One error path for the edge (Hono's HTTPException pattern): routes and middleware throw an
 * {@link HttpError}; the Worker's `onError` turns it into JSON once, with {@link httpErrorResponse}, in
 * the shape of the endpoint that was called:
 *   a POST to a JSON-RPC endpoint  `{ jsonrpc: "2.0", id, error: { code, message } }`, the id
 *                                  the request's when the edge read it (`rpcCall`), else null;
 *                                  the endpoint is the route the router matched (route-match.ts)
 *   anything else                  `{ error: { code, status, message[, details: []] } }` (A2A REST)
 * with the HTTP status of the error either way. Anything else thrown is a 500 REST error that says
 * no more than "Internal error" (the caller logs it).
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { isJsonRpcRoute } from "./route-match.ts";

/** The JSON-RPC code of an error that has no code of its own in the spec (A2A: server error). */
export const SERVER_ERROR = -32000;

/** The A2A REST status names (google.rpc.Code) of the HTTP statuses the edge answers with. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ALREADY_EXISTS",
  413: "INVALID_ARGUMENT",
  415: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  507: "RESOURCE_EXHAUSTED",
};

/** How an {@link HttpError} is answered beyond its status and message. */
export interface HttpErrorOptions {
  /** The JSON-RPC error code when the endpoint speaks JSON-RPC (default {@link SERVER_ERROR}). */
  rpcCode?: number;
  /**
   * Adds `details` to the REST body, as the A2A HTTP+JSON binding's errors carry (`true`: empty);
   * details given (google.rpc ErrorInfo, Help...) also go in a JSON-RPC error's `data`.
   */
  details?: boolean | ReadonlyArray<Record<string, unknown>>;
  /** Response headers (`WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>;
}

/** An expected failure of a request: its HTTP status, a message for the caller, and its shape. */
export class HttpError extends HTTPException {
  readonly rpcCode: number;
  readonly details: boolean | ReadonlyArray<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: ContentfulStatusCode, message: string, options: HttpErrorOptions = {}) {
    super(status, { message });
    this.name = "HttpError";
    this.rpcCode = options.rpcCode ?? SERVER_ERROR;
    this.details = options.details ?? false;
    this.headers = options.headers ?? {};
  }
}

/** A 400 naming the first invalid field of a zod failure. */
export function invalidInput(error: z.ZodError): HttpError {
  const issue = error.issues[0];
  return new HttpError(400, `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
}

/** An HTTPException as a JSON-RPC `error` member: its code (an {@link HttpError}'s), message, data. */
export function rpcErrorOf(error: HTTPException): {
  code: number;
  message: string;
  data?: ReadonlyArray<Record<string, unknown>>;
} {
  const typed = error instanceof HttpError ? error : null;
  const code = typed?.rpcCode ?? SERVER_ERROR;
  const data = Array.isArray(typed?.details) ? { data: typed.details } : {};
  return { code, message: error.message, ...data };
}

/** An HTTPException as an A2A REST error body: `{ error: { code, status, message[, details] } }`. */
export function restErrorOf(error: HTTPException): { error: Record<string, unknown> } {
  const status = error.status;
  const body = { code: status, status: STATUS_NAMES[status] ?? "UNKNOWN", message: error.message };
  const details = error instanceof HttpError ? error.details : false;
  if (!details) return { error: body };
  return { error: { ...body, details: details === true ? [] : details } };
}

/**
 * The JSON answer to anything thrown: an HTTPException (an {@link HttpError} or one of Hono's)
 * with its status and message in the endpoint's shape; anything else as a bare 500 REST error.
 */
export function httpErrorResponse(c: Context, error: unknown): Response {
  if (!(error instanceof HTTPException))
    return c.json({ error: { code: 500, status: "INTERNAL", message: "Internal error" } }, 500);
  const status = error.status as ContentfulStatusCode;
  const typed = error instanceof HttpError ? error : null;
  for (const [name, value] of Object.entries(typed?.headers ?? {})) c.header(name, value);
  if (isJsonRpcRoute(c)) {
    const rpcId: unknown = (c.get("rpcCall") as { id?: unknown } | undefined)?.id;
    const id = typeof rpcId === "string" || typeof rpcId === "number" ? rpcId : null;
    return c.json({ jsonrpc: "2.0", id, error: rpcErrorOf(error) }, status);
  }
  return c.json(restErrorOf(error), status);
}
