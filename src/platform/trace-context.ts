/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): `traceparent` and `tracestate` parsed
 * strictly, formatted for every call the harness makes for a task, and span ids derived from a
 * task id and a span key, so the span id sent onward is a real span of the task's trace (a child
 * names it as its parent) and a task resumed after a restart gets the same ids. No I/O.
 */
import { sha256Hex } from "./hex.ts";

/** A received `traceparent`: the trace to continue and the caller's span, the parent. */
export interface ReceivedTrace {
  traceId: string;
  parentSpanId: string;
  /** The `tracestate` sent with it, when valid. */
  traceState?: string;
}

/** The span a call is made from: what goes out as `traceparent` (and `tracestate`). */
export interface SpanRef {
  traceId: string;
  spanId: string;
  traceState?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;
/** The most characters of a `tracestate` kept (the spec's 512: "may" be dropped past it). */
export const MAX_TRACESTATE = 512;
const TRACESTATE_KEY =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/;
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * A `traceparent` header as its trace and parent span, or null when absent or invalid: not
 * lowercase hex, version `ff`, an all-zero trace or span id, extra fields on version 00 (a later
 * version's extra fields are ignored, as the spec asks).
 */
export function parseTraceparent(header: string | null | undefined): ReceivedTrace | null {
  const match = TRACEPARENT.exec((header ?? "").trim());
  if (!match) return null;
  const [, version, traceId = "", parentSpanId = "", , rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (ZEROS.test(traceId) || ZEROS.test(parentSpanId)) return null;
  return { traceId, parentSpanId };
}

/**
 * A `tracestate` header kept as received when every list member is well formed, there are at
 * most 32 and it is at most {@link MAX_TRACESTATE} characters; otherwise dropped (null).
 */
export function parseTracestate(header: string | null | undefined): string | null {
  const value = (header ?? "").trim();
  if (value === "" || value.length > MAX_TRACESTATE) return null;
  const members = value
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  if (members.length === 0 || members.length > 32) return null;
  const keys = new Set<string>();
  for (const member of members) {
    const eq = member.indexOf("=");
    if (eq <= 0) return null;
    const key = member.slice(0, eq);
    if (!TRACESTATE_KEY.test(key) || !TRACESTATE_VALUE.test(member.slice(eq + 1))) return null;
    if (keys.has(key)) return null;
    keys.add(key);
  }
  return members.join(",");
}

/** The trace a request continues: its `traceparent` (with a valid `tracestate`), or null. */
export function receivedTrace(headers: {
  get(name: string): string | null | undefined;
}): ReceivedTrace | null {
  const parent = parseTraceparent(headers.get("traceparent"));
  if (!parent) return null;
  const state = parseTracestate(headers.get("tracestate"));
  return state ? { ...parent, traceState: state } : parent;
}

/** The `traceparent` (and `tracestate`) headers of a call made from `span` (sampled). */
export function traceHeaders(span: SpanRef): Record<string, string> {
  return {
    traceparent: `00-${span.traceId}-${span.spanId}-01`,
    ...(span.traceState ? { tracestate: span.traceState } : {}),
  };
}

/**
 * The span id of a task's span: the first 8 bytes of SHA-256 of the task id and the span's key
 * (`task`, `step:<turn>`, `model:<n>`, `tool:<callId>`, `wait:<seq>`), never all zero.
 */
export async function spanIdFor(taskId: string, key: string): Promise<string> {
  const hex = (await sha256Hex(`${taskId}\n${key}`)).slice(0, 16);
  return ZEROS.test(hex) ? "0000000000000001" : hex;
}

/**
 * The reference to the span `key` of a task: its trace, its id ({@link spanIdFor}) and the
 * task's `tracestate`; what a call made from the span sends, and what the span itself carries.
 */
export async function spanRef(
  task: { taskId: string; traceId: string; traceState?: string },
  key: string,
): Promise<SpanRef> {
  return {
    traceId: task.traceId,
    spanId: await spanIdFor(task.taskId, key),
    ...(task.traceState ? { traceState: task.traceState } : {}),
  };
}

/** The span key of a tool call. */
export const toolSpanKey = (callId: string) => `tool:${callId}`;
/** The span key of the task itself (the root of its spans). */
export const TASK_SPAN_KEY = "task";
