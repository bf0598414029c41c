/**
 * The agent of both SDK peers in `npm run bench` (the Node reference server and the SDK Worker):
 * an @a2a-js/sdk `AgentExecutor` that publishes the task as WORKING, makes one streaming model
 * call through @anthropic-ai/sdk (same model name, token limit and message as each other), publishes
 * each text delta as a chunk of the `answer` artifact, then the final status (COMPLETED, or
 * FAILED / CANCELED with the error). One file, so the two peers cannot drift apart.
 */
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import type Anthropic from "@anthropic-ai/sdk";

const textOf = (context: RequestContext) =>
  context.userMessage.parts
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join("");

/** Answers each message with one streaming model call; cancel aborts the call. */
export class ModelExecutor implements AgentExecutor {
  readonly #model: Anthropic;
  readonly #aborts = new Map<string, AbortController>();

  constructor(model: Anthropic) {
    this.#model = model;
  }

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const abort = new AbortController();
    this.#aborts.set(taskId, abort);
    bus.publish(
      AgentEvent.task(
        Task.fromJSON({
          id: taskId,
          contextId,
          status: { state: "TASK_STATE_WORKING", timestamp: new Date().toISOString() },
          history: [Message.toJSON(context.userMessage)],
        }),
      ),
    );
    let first = true;
    try {
      const stream = this.#model.messages.stream(
        {
          model: "claude-sonnet-4-6",
          max_tokens: 1024,
          messages: [{ role: "user", content: textOf(context) }],
        },
        { signal: abort.signal },
      );
      for await (const event of stream) {
        if (event.type !== "content_block_delta" || event.delta.type !== "text_delta") continue;
        bus.publish(
          AgentEvent.artifactUpdate(
            TaskArtifactUpdateEvent.fromJSON({
              taskId,
              contextId,
              artifact: {
                artifactId: "answer",
                name: "answer",
                parts: [{ text: event.delta.text }],
              },
              append: !first,
            }),
          ),
        );
        first = false;
      }
      bus.publish(
        AgentEvent.statusUpdate(
          TaskStatusUpdateEvent.fromJSON({
            taskId,
            contextId,
            status: { state: "TASK_STATE_COMPLETED", timestamp: new Date().toISOString() },
          }),
        ),
      );
    } catch (error) {
      bus.publish(
        AgentEvent.statusUpdate(
          TaskStatusUpdateEvent.fromJSON({
            taskId,
            contextId,
            status: {
              state: abort.signal.aborted ? "TASK_STATE_CANCELED" : "TASK_STATE_FAILED",
              timestamp: new Date().toISOString(),
              message: {
                messageId: crypto.randomUUID(),
                role: "ROLE_AGENT",
                parts: [{ text: String(error) }],
              },
            },
          }),
        ),
      );
    } finally {
      this.#aborts.delete(taskId);
      bus.finished();
    }
  }

  async cancelTask(taskId: string): Promise<void> {
    this.#aborts.get(taskId)?.abort();
  }
}
