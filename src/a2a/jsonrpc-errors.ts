/**
 * JSON-RPC error envelopes exactly as the A2A spec (section 9.5) gives them: the five standard
 * codes with their standard messages, validation failures with `google.rpc.BadRequest` field
 * violations, and every A2A error through the SDK's own mapping (`toJsonRpcError`).
 */
import { toJsonRpcError } from "@a2a-js/sdk/errors";
import type { z } from "zod";

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

const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";

/** An error the JSON-RPC layer raises itself (before any handler runs). */
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

/** Any thrown value as a v1.0 JSON-RPC error; unknown errors become -32603 without internals. */
export function toErrorObject(error: unknown): JsonRpcErrorObject {
  if (error instanceof JsonRpcProtocolError) return error.error;
  const mapped = toJsonRpcError(error);
  if (mapped.code === INTERNAL_ERROR) return { code: INTERNAL_ERROR, message: "Internal error" };
  return mapped as JsonRpcErrorObject;
}

/**
 * Any thrown value as a v0.3 JSON-RPC error: the same codes, no ErrorInfo details; the details
 * of a protocol error become one `data` object.
 */
export function toLegacyErrorObject(error: unknown): JsonRpcErrorObject {
  if (error instanceof JsonRpcProtocolError) {
    const [detail] = Array.isArray(error.error.data) ? error.error.data : [];
    return {
      code: error.error.code,
      message: error.error.message,
      ...(detail ? { data: detail } : {}),
    };
  }
  const { code, message } = toErrorObject(error);
  return { code, message };
}

/** A complete error response, in the error shape of the protocol version (`toErrorObject` by default). */
export function errorResponse(
  id: string | number | null,
  error: unknown,
  shape: (error: unknown) => JsonRpcErrorObject = toErrorObject,
): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: shape(error) };
}
