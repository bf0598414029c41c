/**
 * The harness's events on a task's stream, pinned so clients can rely on them: every tool call
 * and result, plan change and hook intervention is a working status-update whose message has a
 * short text part for people and a data part `{ kind, agent, tool?, path?, detail }` (a tool
 * call's events add `callId`, its result `ok` and `chars`) under the
 * extension {@link HARNESS_EVENTS_EXTENSION}, declared in every Agent Card. They also go into the
 * task history. Pure: no I/O.
 */
import { HARNESS_EVENTS_EXTENSION } from "../protocol/extensions.ts";
import type { Message, Part } from "../protocol/wire.ts";
import type { HarnessEvent } from "./contracts.ts";

/** The data part of a harness event. */
export function harnessEventPart(agent: string, event: HarnessEvent): Part {
  return {
    data: {
      kind: event.kind,
      agent,
      ...(event.tool ? { tool: event.tool } : {}),
      ...(event.path ? { path: event.path } : {}),
      detail: event.detail,
      ...(event.callId ? { callId: event.callId } : {}),
      ...(event.outcome ? { ok: event.outcome.ok, chars: event.outcome.chars } : {}),
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
