/**
 * A task's A2A stream as AG-UI events: the answer artifact as one text message (start, content,
 * end), the harness's tool events as tool calls (start, args, end, result), the plan as a state
 * snapshot, other harness events as CUSTOM events, and the task's end as RUN_FINISHED (success,
 * an interrupt for input-required or auth-required, cancelled) or RUN_ERROR (failed, rejected).
 * One translator per run; pure: no I/O.
 */
import { type AGUIEvent, EventType, type Interrupt, type RunFinishedOutcome } from "@ag-ui/core";
import { HARNESS_EVENTS_EXTENSION } from "../protocol/extensions.ts";
import { isJsonObject, type JsonObject } from "../protocol/json-shape.ts";
import { formIn, partsText } from "../protocol/parts.ts";
import { INTERRUPTED_STATES, isTerminal } from "../protocol/task-states.ts";
import type { Message, StreamEvent, TaskStatus } from "../protocol/wire.ts";
import { ANSWER_ARTIFACT_ID } from "../task/runtime/answer-artifact.ts";

/** The prefix of CUSTOM events that carry a harness event (`a2a-edge-harness.<kind>`). */
const CUSTOM_EVENT_PREFIX = "a2a-edge-harness.";

/** The harness event a status message carries, if it carries one. */
function harnessEvent(message: Message | undefined): JsonObject | null {
  for (const part of message?.parts ?? []) {
    if (part.metadata?.extension !== HARNESS_EVENTS_EXTENSION) continue;
    if (isJsonObject(part.data)) return part.data;
  }
  return null;
}

/** Turns one run's A2A events into AG-UI events; {@link done} once the run has its last event. */
export class RunTranslator {
  readonly #threadId: string;
  readonly #runId: string;
  #taskId: string | null = null;
  /** The answer text sent so far, and the id of its open message (null when none is open). */
  #answer = "";
  #answerMessage: string | null = null;
  #answerCount = 0;
  /** Tool calls started and not yet answered, oldest first per tool name. */
  readonly #openCalls = new Map<string, string[]>();
  #callCount = 0;
  #done = false;

  constructor(threadId: string, runId: string) {
    this.#threadId = threadId;
    this.#runId = runId;
  }

  /** True once RUN_FINISHED or RUN_ERROR has been produced. */
  get done(): boolean {
    return this.#done;
  }

  started(): AGUIEvent {
    return {
      type: EventType.RUN_STARTED,
      threadId: this.#threadId,
      runId: this.#runId,
    };
  }

  /** The AG-UI events for one A2A stream event. */
  translate(event: StreamEvent): AGUIEvent[] {
    if (this.#done) return [];
    if ("task" in event) {
      this.#taskId = event.task.id;
      return this.#status(event.task.status);
    }
    if ("message" in event) {
      // A direct answer without a task: the run ends with it.
      return [...this.#say(partsText(event.message.parts), true), ...this.#finish()];
    }
    if ("artifactUpdate" in event) {
      this.#taskId = event.artifactUpdate.taskId;
      const { artifact, append, lastChunk } = event.artifactUpdate;
      if (artifact.artifactId !== ANSWER_ARTIFACT_ID) return [];
      const text = artifact.parts.map((part) => part.text ?? "").join("");
      return this.#answerChunk(text, append === true, lastChunk === true);
    }
    this.#taskId = event.statusUpdate.taskId;
    return this.#status(event.statusUpdate.status);
  }

  /**
   * A RUN_ERROR for a stream that broke before the task reached a state the run can end on
   * (`code`: STREAM_ENDED, or UNAUTHENTICATED when the caller's credentials were revoked).
   */
  broken(reason: string, code = "STREAM_ENDED"): AGUIEvent[] {
    if (this.#done) return [];
    this.#done = true;
    return [...this.#closeAnswer(), { type: EventType.RUN_ERROR, message: reason, code }];
  }

  #status(status: TaskStatus): AGUIEvent[] {
    const event = harnessEvent(status.message);
    if (event) return this.#harnessEvent(event);
    if (isTerminal(status.state)) return this.#end(status);
    if (INTERRUPTED_STATES.has(status.state)) return this.#pause(status);
    return [];
  }

  #harnessEvent(event: JsonObject): AGUIEvent[] {
    const kind = String(event.kind ?? "");
    const tool = typeof event.tool === "string" ? event.tool : "";
    const detail = event.detail;
    if (kind === "tool_call" && tool) {
      const toolCallId = `${this.#taskId ?? this.#runId}-call-${++this.#callCount}`;
      const queue = this.#openCalls.get(tool) ?? [];
      queue.push(toolCallId);
      this.#openCalls.set(tool, queue);
      const args = typeof detail === "string" ? detail : JSON.stringify(detail ?? {});
      const events: AGUIEvent[] = [
        { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: tool },
      ];
      if (args) events.push({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: args });
      events.push({ type: EventType.TOOL_CALL_END, toolCallId });
      return events;
    }
    if (kind === "tool_result" && tool) {
      const toolCallId = this.#openCalls.get(tool)?.shift();
      if (!toolCallId) return [];
      return [
        {
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${toolCallId}-result`,
          toolCallId,
          content: typeof detail === "string" ? detail : JSON.stringify(detail ?? ""),
          role: "tool",
        },
      ];
    }
    if (kind === "plan" && typeof detail === "object" && detail !== null)
      return [{ type: EventType.STATE_SNAPSHOT, snapshot: { plan: detail } }];
    return [{ type: EventType.CUSTOM, name: `${CUSTOM_EVENT_PREFIX}${kind}`, value: event }];
  }

  /** A chunk of the answer: appended, or a replacement of what was sent (only its new tail goes). */
  #answerChunk(text: string, append: boolean, lastChunk: boolean): AGUIEvent[] {
    const events: AGUIEvent[] = [];
    if (append) events.push(...this.#say(text, false));
    else if (text.startsWith(this.#answer))
      events.push(...this.#say(text.slice(this.#answer.length), false));
    else {
      // A replacement that is not a continuation: the message sent so far stands, a new one follows.
      events.push(...this.#closeAnswer());
      this.#answer = "";
      events.push(...this.#say(text, false));
    }
    if (lastChunk) events.push(...this.#closeAnswer());
    return events;
  }

  /** Sends `text` on the open answer message (opening one first); closes it when `close`. */
  #say(text: string, close: boolean): AGUIEvent[] {
    const events: AGUIEvent[] = [];
    if (text !== "") {
      if (this.#answerMessage === null) {
        this.#answerMessage = `${this.#taskId ?? this.#runId}-answer-${++this.#answerCount}`;
        events.push({
          type: EventType.TEXT_MESSAGE_START,
          messageId: this.#answerMessage,
          role: "assistant",
        });
      }
      events.push({
        type: EventType.TEXT_MESSAGE_CONTENT,
        messageId: this.#answerMessage,
        delta: text,
      });
      this.#answer += text;
    }
    if (close) events.push(...this.#closeAnswer());
    return events;
  }

  #closeAnswer(): AGUIEvent[] {
    if (this.#answerMessage === null) return [];
    const messageId = this.#answerMessage;
    this.#answerMessage = null;
    return [{ type: EventType.TEXT_MESSAGE_END, messageId }];
  }

  #end(status: TaskStatus): AGUIEvent[] {
    const events: AGUIEvent[] = [];
    // Nothing streamed (an answer given whole, a refusal, a failure): the status message says it.
    if (this.#answerCount === 0 && this.#answer === "" && status.state === "TASK_STATE_COMPLETED")
      events.push(...this.#say(partsText(status.message?.parts), true));
    events.push(...this.#closeAnswer());
    if (status.state === "TASK_STATE_COMPLETED") return [...events, ...this.#finish()];
    if (status.state === "TASK_STATE_CANCELED")
      return [...events, ...this.#finish({ type: "cancelled" })];
    this.#done = true;
    const why =
      partsText(status.message?.parts) ||
      (status.state === "TASK_STATE_REJECTED" ? "The agent refused the task." : "The task failed.");
    return [
      ...events,
      {
        type: EventType.RUN_ERROR,
        message: why,
        code: status.state === "TASK_STATE_REJECTED" ? "REJECTED" : "FAILED",
      },
    ];
  }

  /** The task waits for the person: the run ends with an interrupt that the next run answers. */
  #pause(status: TaskStatus): AGUIEvent[] {
    const question = partsText(status.message?.parts);
    const schema = formIn(status.message?.parts);
    const interrupt: Interrupt = {
      id: this.#taskId ?? this.#runId,
      reason: status.state === "TASK_STATE_AUTH_REQUIRED" ? "auth_required" : "input_required",
      ...(question ? { message: question } : {}),
      ...(schema ? { responseSchema: schema } : {}),
    };
    return [
      ...this.#closeAnswer(),
      ...this.#finish({ type: "interrupt", interrupts: [interrupt] }),
    ];
  }

  #finish(outcome?: RunFinishedOutcome): AGUIEvent[] {
    this.#done = true;
    return [
      {
        type: EventType.RUN_FINISHED,
        threadId: this.#threadId,
        runId: this.#runId,
        ...(this.#taskId ? { result: { taskId: this.#taskId } } : {}),
        ...(outcome ? { outcome } : {}),
      },
    ];
  }
}
