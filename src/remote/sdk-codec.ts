/**
 * Between the SDK client's objects and the harness's wire JSON: requests are built from JSON with
 * the SDK's own `fromJSON`, and answers (Task, Message, stream events) are read back through its
 * `toJSON`, which gives the v1.0 JSON the rest of the harness speaks. Summaries say what a model
 * or a parent task needs: the state, the answer text, the question when input is required.
 */
import {
  Message,
  SendMessageRequest,
  type StreamResponse,
  StreamResponse as StreamResponseFns,
  Task,
} from "@a2a-js/sdk";
import { isAnswerEcho } from "../protocol/answer-echo.ts";
import { partsText } from "../protocol/parts.ts";
import type { Part, Task as WireTask } from "../protocol/wire.ts";

/** A SendMessageRequest for the SDK client. */
export function sendRequest(input: {
  parts: Part[];
  /** A stable id makes a resent message reach the same task; random by default. */
  messageId?: string;
  taskId?: string;
  contextId?: string;
  metadata?: Record<string, unknown>;
  returnImmediately?: boolean;
}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: input.messageId ?? crypto.randomUUID(),
      role: "ROLE_USER",
      parts: input.parts,
      ...(input.taskId ? { taskId: input.taskId } : {}),
      ...(input.contextId ? { contextId: input.contextId } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    },
    configuration: input.returnImmediately ? { returnImmediately: true } : {},
  });
}

/** What a remote task or message amounts to. */
export interface RemoteOutcome {
  taskId: string | null;
  contextId: string | null;
  /** `TASK_STATE_...`, or `MESSAGE` when the agent answered with a message. */
  state: string;
  /** The answer (artifacts' text), else the status message's text. */
  text: string;
  /** The status message's parts (the question when input is required). */
  statusParts: Part[];
  artifacts: string[];
}

/** A remote agent's parts as a model reads them: data parts (a form, a record) as their JSON. */
const textOf = (parts: readonly Part[] | undefined) => partsText(parts, { dataAsJson: true });

/** The outcome of a SendMessage / GetTask / CancelTask result. */
export function outcomeOf(result: Message | Task): RemoteOutcome {
  if ("messageId" in result) {
    const message = Message.toJSON(result) as {
      parts?: Part[];
      taskId?: string;
      contextId?: string;
    };
    return {
      taskId: message.taskId ?? null,
      contextId: message.contextId ?? null,
      state: "MESSAGE",
      text: textOf(message.parts),
      statusParts: message.parts ?? [],
      artifacts: [],
    };
  }
  const task = Task.toJSON(result) as WireTask;
  const answer = (task.artifacts ?? []).map((a) => textOf(a.parts)).join("\n\n");
  const status = task.status.message?.parts ?? [];
  return {
    taskId: task.id,
    contextId: task.contextId,
    state: task.status.state,
    text: answer || textOf(status),
    statusParts: status,
    artifacts: (task.artifacts ?? []).map((a) => a.name ?? a.artifactId),
  };
}

/** A stream event as v1.0 JSON. */
export function streamEventJson(event: StreamResponse): Record<string, unknown> {
  return StreamResponseFns.toJSON(event) as Record<string, unknown>;
}

/** The text of a status update or artifact chunk of a stream event, with its kind. */
export function streamEventText(event: Record<string, unknown>): {
  kind: "status" | "artifact" | "task" | "message";
  text: string;
  state?: string;
  append?: boolean;
  taskId?: string;
} {
  if (event.statusUpdate) {
    const u = event.statusUpdate as {
      taskId: string;
      status: { state: string; message?: { parts?: Part[]; extensions?: string[] } };
    };
    return {
      kind: "status",
      // A harness agent's answer echo repeats its answer artifact: it says nothing new.
      text: isAnswerEcho(u.status.message) ? "" : textOf(u.status.message?.parts),
      state: u.status.state,
      taskId: u.taskId,
    };
  }
  if (event.artifactUpdate) {
    const u = event.artifactUpdate as { append?: boolean; artifact: { parts?: Part[] } };
    return { kind: "artifact", text: textOf(u.artifact.parts), append: u.append === true };
  }
  if (event.task) {
    const t = event.task as WireTask;
    return { kind: "task", text: "", state: t.status.state, taskId: t.id };
  }
  return { kind: "message", text: textOf((event.message as { parts?: Part[] })?.parts) };
}
