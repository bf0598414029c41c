/**
 * The one error table of every face: each failure an A2A binding answers, from the errors the
 * edge raises itself (parse, envelope, method, params: {@link JsonRpcProtocolError}) and the A2A
 * typed errors the gateway throws (`@a2a-js/sdk/errors`), to its JSON-RPC code (spec §9.5), its
 * HTTP status and google.rpc status name (spec §11.6), in the shape of each binding and version.
 * The edge's own {@link HttpError} (consent, access) keeps its status and message, as the Worker's
 * onError answers it. Anything else is internal: {@link scrub} logs it and the caller reads
 * "Internal error", nothing more, on every binding and every face (MCP, AG-UI:
 * {@link callerMessage}). Pure: no I/O.
 */
import { A2AError } from "@a2a-js/sdk/errors";
import type { z } from "zod";
import { HttpError, restErrorOf, rpcErrorOf } from "../platform/http-error.ts";

/** A JSON-RPC `error` member (v1.0 `data` is an array of details; v0.3 `data` is any value). */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC error response. */
export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  error: JsonRpcErrorObject;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** What a caller reads of an internal error. */
export const INTERNAL_MESSAGE = "Internal error";

const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";

/** An A2A error's JSON-RPC code, HTTP status and google.rpc status name. */
interface ErrorRow {
  code: number;
  http: number;
  status: string;
}

/** The A2A typed errors (by name), spec 1.0.1 §9.5 and §11.6. */
const A2A_ERRORS: Readonly<Record<string, ErrorRow>> = {
  TaskNotFoundError: { code: -32001, http: 404, status: "NOT_FOUND" },
  TaskNotCancelableError: { code: -32002, http: 400, status: "FAILED_PRECONDITION" },
  PushNotificationNotSupportedError: { code: -32003, http: 400, status: "FAILED_PRECONDITION" },
  UnsupportedOperationError: { code: -32004, http: 400, status: "FAILED_PRECONDITION" },
  ContentTypeNotSupportedError: { code: -32005, http: 400, status: "INVALID_ARGUMENT" },
  InvalidAgentResponseError: { code: -32006, http: 500, status: "INTERNAL" },
  ExtendedAgentCardNotConfiguredError: { code: -32007, http: 400, status: "FAILED_PRECONDITION" },
  ExtensionSupportRequiredError: { code: -32008, http: 400, status: "FAILED_PRECONDITION" },
  VersionNotSupportedError: { code: -32009, http: 400, status: "FAILED_PRECONDITION" },
  // The A2A 1.1 draft's (protocol/generation-error.ts), under the generations extension.
  TaskGenerationMismatchError: { code: -32010, http: 409, status: "ABORTED" },
  RequestMalformedError: { code: INVALID_PARAMS, http: 400, status: "INVALID_ARGUMENT" },
};

/** An error the edge raises itself, before the gateway runs (its JSON-RPC error as is). */
export class JsonRpcProtocolError extends Error {
  override readonly name = "JsonRpcProtocolError";
  readonly error: JsonRpcErrorObject;
  constructor(error: JsonRpcErrorObject) {
    super(error.message);
    this.error = error;
  }
}

/** -32700: the body is not JSON. */
export function parseError(detail: string): JsonRpcProtocolError {
  return new JsonRpcProtocolError({
    code: PARSE_ERROR,
    message: `Invalid JSON payload: ${detail}`,
  });
}

/** -32600: not a valid JSON-RPC request object. */
export function invalidRequest(detail: string): JsonRpcProtocolError {
  return new JsonRpcProtocolError({
    code: INVALID_REQUEST,
    message: `Request payload validation error: ${detail}`,
  });
}

/** -32601: no such method (for this protocol version). */
export function methodNotFound(
  method: string,
  known: readonly string[],
  version = "1.0",
  hint = "",
): JsonRpcProtocolError {
  return new JsonRpcProtocolError({
    code: METHOD_NOT_FOUND,
    message: `Method not found: ${method.slice(0, 100)} (A2A ${version} methods: ${known.join(", ")})${hint}`,
    data: [{ "@type": "type.googleapis.com/google.rpc.Help", links: [], knownMethods: [...known] }],
  });
}

/** -32602 from a zod failure: one field violation per issue. */
export function invalidParams(error: z.ZodError, prefix = "params"): JsonRpcProtocolError {
  const fieldViolations = error.issues.slice(0, 20).map((issue) => ({
    field: [prefix, ...issue.path.map(String)].join("."),
    description: issue.message,
  }));
  const first = fieldViolations[0];
  return new JsonRpcProtocolError({
    code: INVALID_PARAMS,
    message: first
      ? `Invalid parameters: ${first.field}: ${first.description}`
      : "Invalid parameters",
    data: [{ "@type": BAD_REQUEST_TYPE, fieldViolations }],
  });
}

/** The table's row of an A2A typed error, or null. */
function a2aRow(error: unknown): ErrorRow | null {
  if (!(error instanceof A2AError) || !Object.hasOwn(A2A_ERRORS, error.name)) return null;
  return A2A_ERRORS[error.name] ?? null;
}

/**
 * The one scrub: true when `error` is internal (not an edge error, not in the table, or an HTTP
 * 5xx by it), after handing it to `log`. The caller answers with {@link INTERNAL_MESSAGE} alone.
 */
export function scrub(error: unknown, log?: (error: unknown) => void): boolean {
  if (error instanceof JsonRpcProtocolError || error instanceof HttpError) return false;
  const row = a2aRow(error);
  if (row && row.http < 500) return false;
  log?.(error);
  return true;
}

/** What a caller reads of `error`: its message, or {@link INTERNAL_MESSAGE} when {@link scrub} says. */
export function callerMessage(error: unknown, log?: (error: unknown) => void): string {
  // What scrub passes is an edge or A2A error: an Error.
  return !scrub(error, log) && error instanceof Error ? error.message : INTERNAL_MESSAGE;
}

/** Any thrown value as a JSON-RPC error object of `version` (v0.3: one `data` object, no ErrorInfo). */
export function rpcErrorObject(
  error: unknown,
  version: "1.0" | "0.3",
  log?: (error: unknown) => void,
): JsonRpcErrorObject {
  if (error instanceof JsonRpcProtocolError) {
    if (version === "1.0") return error.error;
    const [detail] = Array.isArray(error.error.data) ? error.error.data : [];
    return {
      code: error.error.code,
      message: error.error.message,
      ...(detail ? { data: detail } : {}),
    };
  }
  // An edge error in a stream that has begun (before it, onError answers it with its status).
  if (error instanceof HttpError) return rpcErrorOf(error);
  const row = a2aRow(error);
  if (scrub(error, log) || !row || !(error instanceof A2AError))
    return { code: INTERNAL_ERROR, message: INTERNAL_MESSAGE };
  const { message } = error;
  if (version === "0.3") return { code: row.code, message };
  return { code: row.code, message, data: [error.toErrorInfo()] };
}

/** A complete JSON-RPC error response of `version`. */
export function rpcErrorResponse(
  id: string | number | null,
  error: unknown,
  version: "1.0" | "0.3",
  log?: (error: unknown) => void,
): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: rpcErrorObject(error, version, log) };
}

/** An HTTP status an error carries itself (the SDK's REST errors: 415 for a body's media type). */
const ownStatus = (error: unknown): number | undefined => {
  const status = error instanceof Error && "statusCode" in error ? error.statusCode : undefined;
  return typeof status === "number" ? status : undefined;
};

/**
 * Any thrown value as an HTTP+JSON failure of `version`: v1.0 a google.rpc.Status body
 * (`{ error: { code, status, message, details } }`), v0.3 `{ code, message }` (JSON-RPC codes).
 */
export function restFailure(
  error: unknown,
  version: "1.0" | "0.3",
  log?: (error: unknown) => void,
): { status: number; body: unknown } {
  if (error instanceof HttpError)
    return {
      status: error.status,
      body: version === "0.3" ? rpcErrorOf(error) : restErrorOf(error),
    };
  const protocol = error instanceof JsonRpcProtocolError ? error.error : null;
  const row = a2aRow(error);
  const status = protocol
    ? protocol.code === METHOD_NOT_FOUND && version === "0.3"
      ? 404
      : 400
    : row
      ? (ownStatus(error) ?? row.http)
      : 500;
  if (status >= 500) {
    log?.(error);
    return version === "0.3"
      ? { status: 500, body: { code: INTERNAL_ERROR, message: INTERNAL_MESSAGE } }
      : {
          status: 500,
          body: {
            error: { code: 500, status: "INTERNAL", message: INTERNAL_MESSAGE, details: [] },
          },
        };
  }
  if (version === "0.3") return { status, body: rpcErrorObject(error, "0.3") };
  // Below 500, an error is the protocol's or in the table (an A2AError).
  const details = protocol
    ? (protocol.data ?? [])
    : error instanceof A2AError
      ? [error.toErrorInfo()]
      : [];
  return {
    status,
    body: {
      error: {
        code: status,
        status: protocol ? "INVALID_ARGUMENT" : (row?.status ?? "UNKNOWN"),
        message: error instanceof Error ? error.message : INTERNAL_MESSAGE,
        details,
      },
    },
  };
}
