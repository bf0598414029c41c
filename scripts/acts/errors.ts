/**
 * Which A2A error a response is, by name (`TaskNotFoundError`, ...), the way each binding says it
 * (spec 1.0.1 §5.4): JSON-RPC by its error code; HTTP+JSON by the `google.rpc.ErrorInfo` reason in
 * `error.details` (`TASK_NOT_FOUND`), else by the HTTP status (a `google.rpc.BadRequest` 400 is
 * InvalidParamsError). The ACTS error types are these names, so an expectation compares names
 * and the spec's codes decide, where the ACTS table differs from them. Pure.
 */
import { isMap } from "./json.ts";

/** The spec's JSON-RPC codes (1.0.1 §9.5 and JSON-RPC 2.0) by error name. */
const CODES: Readonly<Record<number, string>> = {
  [-32001]: "TaskNotFoundError",
  [-32002]: "TaskNotCancelableError",
  [-32003]: "PushNotificationNotSupportedError",
  [-32004]: "UnsupportedOperationError",
  [-32005]: "ContentTypeNotSupportedError",
  [-32006]: "InvalidAgentResponseError",
  [-32007]: "ExtendedAgentCardNotConfiguredError",
  [-32008]: "ExtensionSupportRequiredError",
  [-32009]: "VersionNotSupportedError",
  [-32700]: "JSONParseError",
  [-32600]: "InvalidRequestError",
  [-32601]: "MethodNotFoundError",
  [-32602]: "InvalidParamsError",
  [-32603]: "InternalError",
};

/** HTTP statuses that name one error when no ErrorInfo says more. */
const STATUSES: Readonly<Record<number, string>> = {
  401: "UnauthenticatedError",
  403: "PermissionDeniedError",
  404: "TaskNotFoundError",
  415: "ContentTypeNotSupportedError",
  500: "InternalError",
};

/** The name of a JSON-RPC error code, or null for a code the spec does not name. */
export const jsonRpcErrorName = (code: unknown): string | null =>
  typeof code === "number" ? (CODES[code] ?? null) : null;

/** `TASK_NOT_FOUND` as `TaskNotFoundError`. */
const fromReason = (reason: string) =>
  `${reason
    .toLowerCase()
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("")}Error`;

/** The name of an HTTP+JSON error answer (its status and google.rpc.Status body). */
export function restErrorName(status: number, body: unknown): string | null {
  const error = isMap(body) && isMap(body.error) ? body.error : undefined;
  const details = Array.isArray(error?.details) ? error.details : [];
  for (const detail of details) {
    if (!isMap(detail)) continue;
    const type = String(detail["@type"] ?? "");
    if (type.endsWith("google.rpc.ErrorInfo") && typeof detail.reason === "string")
      return fromReason(detail.reason);
    if (type.endsWith("google.rpc.BadRequest")) return "InvalidParamsError";
  }
  if (status === 400) return error?.status === "INVALID_ARGUMENT" ? "InvalidParamsError" : null;
  return STATUSES[status] ?? null;
}
