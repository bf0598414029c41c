/**
 * The reference A2A server for the benchmarks: what a developer would otherwise deploy, a Node
 * server on @a2a-js/sdk (its express adapter, `DefaultRequestHandler`, `InMemoryTaskStore`) whose
 * executor makes the same streaming model call through @anthropic-ai/sdk and publishes the answer
 * as artifact chunks, then the final status. Fast, and it loses every task on restart. Lives only
 * under bench/. Run: `node bench/reference-server.ts --port P --model http://127.0.0.1:M`.
 */
import { parseArgs } from "node:util";
import {
  AgentCard,
  Message,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
} from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import Anthropic from "@anthropic-ai/sdk";
import express from "express";

const { values } = parseArgs({
  options: { port: { type: "string", default: "8790" }, model: { type: "string" } },
});
const port = Number(values.port);
const model = new Anthropic({ apiKey: "bench-key", baseURL: values.model, maxRetries: 0 });

const card = AgentCard.fromJSON({
  name: "reference",
  description: "The @a2a-js/sdk reference server (InMemoryTaskStore)",
  version: "1.0.0",
  supportedInterfaces: [
    { url: `http://127.0.0.1:${port}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  ],
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
});

const textOf = (context: RequestContext) =>
  context.userMessage.parts
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join("");

class ModelExecutor implements AgentExecutor {
  readonly #aborts = new Map<string, AbortController>();

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
      const stream = model.messages.stream(
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

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ModelExecutor());
const app = express();
app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
app.use(express.json({ limit: "1mb" }));
app.post(
  "/",
  jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
);
app.get("/health", (_req, res) => {
  res.json({ ok: true });
});
app.listen(port, "127.0.0.1", () =>
  console.log(`reference A2A server on http://127.0.0.1:${port}`),
);
