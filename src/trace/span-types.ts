/**
 * The shape of a span as the harness builds it from a task's records (spans.ts), before it is
 * encoded as OTLP (otlp.ts), and the reading of the task's event log it is built from: status
 * changes and harness events with their times. Pure: no I/O.
 */

import { fieldOf, textField } from "../platform/fields.ts";
import { HARNESS_EVENTS_EXTENSION } from "../protocol/extensions.ts";
import type { StreamEvent, TaskStateName } from "../protocol/wire.ts";

/** An attribute value (OTLP's scalar kinds and string arrays). */
export type AttributeValue = string | number | boolean | string[];

/** A span of a task's trace. Times are ms since the epoch. */
export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** The task whose records the span comes from. */
  taskId: string;
  name: string;
  kind: "internal" | "server" | "client";
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; atMs: number; attributes: Record<string, AttributeValue> }>;
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, AttributeValue> }>;
  status: { code: "unset" | "ok" | "error"; message?: string };
  traceState?: string;
}

/** A harness event's data part, as the log holds it (loop/harness-events.ts). */
export interface LoggedHarnessEvent {
  kind: string;
  tool?: string;
  path?: string;
  detail?: unknown;
  callId?: string;
  ok?: boolean;
  chars?: number;
}

/** What one log entry says for tracing: a status change, a harness event, or nothing. */
export type LogFact =
  | { at: number; seq: number; type: "status"; state: TaskStateName }
  | { at: number; seq: number; type: "harness"; event: LoggedHarnessEvent };

/** The facts of the task's event log, oldest first. */
export function logFacts(
  entries: ReadonlyArray<{ seq: number; at: number; event: StreamEvent }>,
): LogFact[] {
  const facts: LogFact[] = [];
  let state: TaskStateName | null = null;
  for (const { seq, at, event } of entries) {
    if (!("statusUpdate" in event)) continue;
    const status = event.statusUpdate.status;
    const harness = status.message?.parts.find(
      (p) => fieldOf(p.metadata, "extension") === HARNESS_EVENTS_EXTENSION,
    );
    const data = harness && "data" in harness ? harness.data : undefined;
    // The harness wrote this part (its extension says so) from a LoggedHarnessEvent: its kind
    // is the one field read before the event is taken as one.
    if (textField(data, "kind") !== undefined)
      facts.push({ at, seq, type: "harness", event: data as LoggedHarnessEvent });
    if (status.state !== state) {
      state = status.state;
      facts.push({ at, seq, type: "status", state });
    }
  }
  return facts;
}

/** States in which the task waits for a person. */
export const WAITING_STATES: ReadonlySet<string> = new Set([
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
]);
