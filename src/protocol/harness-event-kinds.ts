/**
 * The kinds of harness events: the `kind` of the data part the harness events extension marks
 * (extensions.ts), pinned because clients rely on them. The one list: the loop types its events
 * by it (loop/contracts.ts), a trace makes span events of the hook interventions
 * (trace/spans.ts), the console names each kind. Constants only; imports nothing.
 */

/** Kinds that are a hook's intervention (in a trace, events on the step, not spans). */
export const HOOK_EVENT_KINDS = [
  "verification",
  "loop_warning",
  "cap_reached",
  "output_truncated",
  "output_compacted",
  "checkpoint",
  "rollback",
  "compaction",
  "turn_limit",
  "time_limit",
  "approval",
] as const;

/** Every kind of harness event. */
export const HARNESS_EVENT_KINDS = [
  "tool_call",
  "tool_result",
  "plan",
  "progress",
  ...HOOK_EVENT_KINDS,
  "subagent",
  "remote",
  "session_start",
] as const;

/** A kind of harness event. */
export type HarnessEventKind = (typeof HARNESS_EVENT_KINDS)[number];
