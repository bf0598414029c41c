/**
 * The harness's events on a task's stream, pinned so clients can rely on them: every tool call
 * and result, plan change and hook intervention is a working status-update whose message has a
 * short text part for people and a data part `{ kind, agent, tool?, path?, detail }` under the
 * extension {@link HARNESS_EVENTS_EXTENSION}, declared in every Agent Card. They also go into the
 * task history. Pure: no I/O.
 */
import type { Message, Part } from "../protocol/wire.ts";

/** The extension URI of harness events. */
export const HARNESS_EVENTS_EXTENSION = "urn:a2a-edge-harness:ext:harness-events:v1";

/** Every kind of harness event. */
export const HARNESS_EVENT_KINDS = [
  "tool_call",
  "tool_result",
  "plan",
  "progress",
  "verification",
  "loop_warning",
  "cap_reached",
  "output_truncated",
  "output_compacted",
  "checkpoint",
  "rollback",
  "compaction",
  "turn_limit",
  "approval",
  "subagent",
  "remote",
] as const;
export type HarnessEventKind = (typeof HARNESS_EVENT_KINDS)[number];

/** An event as the harness raises it (the agent is filled in by the task). */
export interface HarnessEvent {
  kind: HarnessEventKind;
  /** One short line for people. */
  text: string;
  tool?: string;
  path?: string;
  /** Machine-readable detail: a short string, or an object for structured kinds (plan). */
  detail: string | Record<string, unknown>;
}

/** The data part of a harness event. */
export function harnessEventPart(agent: string, event: HarnessEvent): Part {
  return {
    data: {
      kind: event.kind,
      agent,
      ...(event.tool ? { tool: event.tool } : {}),
      ...(event.path ? { path: event.path } : {}),
      detail: event.detail,
    },
    mediaType: "application/json",
    metadata: { extension: HARNESS_EVENTS_EXTENSION },
  };
}

/** The status message carrying a harness event. */
export function harnessEventMessage(
  agent: string,
  event: HarnessEvent,
  ids: { taskId: string; contextId: string },
): Message {
  return {
    messageId: crypto.randomUUID(),
    role: "ROLE_AGENT",
    parts: [{ text: event.text }, harnessEventPart(agent, event)],
    extensions: [HARNESS_EVENTS_EXTENSION],
    taskId: ids.taskId,
    contextId: ids.contextId,
  };
}
