/**
 * `expect_stream` (acts-specification.md §7) over a stream's events: counts, the server closing
 * the stream, `monotonic_state` (SUBMITTED only first, nothing after a terminal state but that
 * state again), event assertions at a position or anywhere, the final event and every event. An
 * event assertion names the event's kind (`task`, `message`, `status_update`, `artifact_update`,
 * in snake or camel case) or speaks of the event's payload directly (`status`, `artifact`), and may
 * offer alternatives (`one_of`, `any_of`) of such assertions. Raw streams (a raw step's) are
 * checked as they came, JSON-RPC envelopes included. Pure.
 */
import { check, type Failure, show } from "./assertions.ts";
import { isMap, type Json } from "./json.ts";

/** The expectations of a stream, as a step writes them. */
export interface StreamExpectation {
  min_count?: number | undefined;
  max_count?: number | undefined;
  ordering?: "monotonic_state" | undefined;
  events?: Json[] | undefined;
  final_event?: Json | undefined;
  each_event?: Json | undefined;
}

/** The kinds of StreamResponse, by every spelling an assertion uses. */
const KINDS: Readonly<Record<string, string>> = {
  task: "task",
  message: "message",
  status_update: "statusUpdate",
  statusUpdate: "statusUpdate",
  artifact_update: "artifactUpdate",
  artifactUpdate: "artifactUpdate",
};
const META = new Set(["description", "match", "index"]);
const TERMINAL = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
]);

/** The payload of an event: the value of its one kind member (a raw event is its own payload). */
function payloadOf(event: unknown, raw: boolean): unknown {
  if (raw || !isMap(event)) return event;
  const kind = Object.values(KINDS).find((k) => k in event);
  return kind ? event[kind] : event;
}

/** Failures of one event against an event assertion. */
export function eventFailures(
  event: unknown,
  assertion: Json,
  path: string,
  raw = false,
): Failure[] {
  const failures: Failure[] = [];
  for (const [key, value] of Object.entries(assertion)) {
    if (META.has(key)) continue;
    const kind = KINDS[key];
    if (kind && !raw) {
      failures.push(...check(isMap(event) ? event[kind] : undefined, value, `${path}.${key}`));
    } else if ((key === "one_of" || key === "any_of") && Array.isArray(value)) {
      const ok = value.some(
        (alt) => isMap(alt) && eventFailures(event, alt, path, raw).length === 0,
      );
      if (!ok)
        failures.push({ path, message: `expected ${key} ${show(value)}, got ${show(event)}` });
    } else failures.push(...check(payloadOf(event, raw), { [key]: value }, path));
  }
  return failures;
}

/** The task state an event reports, if any. */
function stateOf(event: unknown): string | undefined {
  const payload = payloadOf(event, false);
  if (!isMap(payload) || !isMap(payload.status)) return undefined;
  const state = payload.status.state;
  return typeof state === "string" ? state : undefined;
}

/** `monotonic_state`: SUBMITTED only first; after a terminal state, only that state again. */
function orderingFailures(events: unknown[]): Failure[] {
  let previous: string | undefined;
  for (const [i, event] of events.entries()) {
    const state = stateOf(event);
    if (!state) continue;
    const path = `events[${i}]`;
    if (previous && state === "TASK_STATE_SUBMITTED" && previous !== state)
      return [{ path, message: `state went back to SUBMITTED after ${previous}` }];
    if (previous && TERMINAL.has(previous) && state !== previous)
      return [{ path, message: `state ${state} after the terminal ${previous}` }];
    previous = state;
  }
  return [];
}

/** The failures of event assertion `n` of `expected.events`. */
function positionalFailures(
  events: unknown[],
  assertion: Json,
  n: number,
  raw: boolean,
): Failure[] {
  const what = typeof assertion.description === "string" ? ` (${assertion.description})` : "";
  if (assertion.match === "any_position") {
    if (events.some((e, i) => eventFailures(e, assertion, `events[${i}]`, raw).length === 0))
      return [];
    return [{ path: `events[*]`, message: `no event matches${what}` }];
  }
  const index = typeof assertion.index === "number" ? assertion.index : n;
  if (index >= events.length)
    return [{ path: `events[${index}]`, message: `no event at ${index}${what}` }];
  return eventFailures(events[index], assertion, `events[${index}]`, raw);
}

/** Every failure of a stream against its expectations. */
export function streamFailures(
  events: unknown[],
  closed: boolean,
  expected: StreamExpectation,
  raw = false,
): Failure[] {
  const failures: Failure[] = [];
  if (!closed) failures.push({ path: "stream", message: "the server did not end the stream" });
  if (expected.min_count !== undefined && events.length < expected.min_count)
    failures.push({
      path: "events",
      message: `expected at least ${expected.min_count} events, got ${events.length}`,
    });
  if (expected.max_count !== undefined && events.length > expected.max_count)
    failures.push({
      path: "events",
      message: `expected at most ${expected.max_count} events, got ${events.length}`,
    });
  if (expected.ordering === "monotonic_state") failures.push(...orderingFailures(events));
  for (const [n, assertion] of (expected.events ?? []).entries())
    failures.push(...positionalFailures(events, assertion, n, raw));
  if (expected.final_event) {
    if (events.length === 0)
      failures.push({ path: "final_event", message: "the stream had no events" });
    else failures.push(...eventFailures(events.at(-1), expected.final_event, "final_event", raw));
  }
  if (expected.each_event)
    for (const [i, event] of events.entries())
      failures.push(...eventFailures(event, expected.each_event, `events[${i}]`, raw));
  return failures;
}
