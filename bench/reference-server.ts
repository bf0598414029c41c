/**
 * The reference A2A server for the benchmarks: what a developer would otherwise deploy, a Node
 * server on @a2a-js/sdk (its express adapter, `DefaultRequestHandler`, `InMemoryTaskStore`) whose
 * executor (bench/model-executor.ts) makes the same streaming model call through @anthropic-ai/sdk
 * and publishes the answer as artifact chunks, then the final status. Fast, and it loses every
 * task on restart. Lives only under bench/. Run: `node bench/reference-server.ts --port P --model http://127.0.0.1:M`.
 */
import { parseArgs } from "node:util";
import { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import Anthropic from "@anthropic-ai/sdk";
import express from "express";
import { ModelExecutor } from "./model-executor.ts";

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

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ModelExecutor(model));
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
