/**
 * The SDK Worker peer of `npm run bench`: what a Workers developer would write with the official
 * SDK alone. @a2a-js/sdk's `DefaultRequestHandler` + `JsonRpcTransportHandler` (A2A v1.0
 * JSON-RPC at `/`, blocking `SendMessage` and SSE `SendStreamingMessage`), the Agent Card at
 * `/.well-known/agent-card.json`, `/health`; tasks in the SDK's durable `DatabaseTaskStore` over
 * D1 (kysely + kysely-d1, the table from the SDK's `a2a-db` CLI: migrations/) or, with
 * `TASK_STORE=memory`, its `InMemoryTaskStore`; the agent is bench/model-executor.ts, the same
 * streaming model call as the Node reference. No auth, limits or anything else of the harness:
 * the port of the SDK's express adapter to `fetch` (version check, JSON-RPC, SSE framing).
 */
import {
  A2A_VERSION_HEADER,
  AGENT_CARD_PATH,
  AgentCard,
  Extensions,
  formatSSEErrorEvent,
  formatSSEEvent,
  HTTP_EXTENSION_HEADER,
  SSE_HEADERS,
} from "@a2a-js/sdk";
import {
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  validateVersion,
} from "@a2a-js/sdk/server";
import { DatabaseTaskStore } from "@a2a-js/sdk/server/database";
import Anthropic from "@anthropic-ai/sdk";
import { Kysely } from "kysely";
import { D1Dialect } from "kysely-d1";
import { ModelExecutor } from "../model-executor.ts";
import { SettlingTaskStore } from "./settling-store.ts";

/** One per isolate: the card, the store and the handler (its event buses live in memory). */
interface Peer {
  card: AgentCard;
  store: SettlingTaskStore;
  handler: DefaultRequestHandler;
  transport: JsonRpcTransportHandler;
}

let cached: Peer | undefined;

function peerFor(env: SdkWorkerEnv, origin: string): Peer {
  if (cached) return cached;
  const memory = env.TASK_STORE === "memory";
  const card = AgentCard.fromJSON({
    name: "sdk-worker",
    description: `The @a2a-js/sdk Worker peer (${memory ? "InMemoryTaskStore" : "DatabaseTaskStore over D1"})`,
    version: "1.0.0",
    supportedInterfaces: [
      { url: `${origin}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  });
  const store = new SettlingTaskStore(
    memory
      ? new InMemoryTaskStore()
      : new DatabaseTaskStore(new Kysely({ dialect: new D1Dialect({ database: env.DB }) })),
  );
  const model = new Anthropic({
    apiKey: "bench-key",
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    maxRetries: 0,
  });
  const handler = new DefaultRequestHandler(card, store, new ModelExecutor(model));
  cached = { card, store, handler, transport: new JsonRpcTransportHandler(handler) };
  return cached;
}

type RpcId = string | number | null;
const rpcError = (id: RpcId, error: unknown) => ({
  jsonrpc: "2.0",
  id,
  error: JsonRpcTransportHandler.mapToJSONRPCError(error),
});

/** SSE frames of the handler's stream; an error before the first event is a JSON-RPC answer. */
async function sse(stream: AsyncGenerator<unknown, void>, id: RpcId): Promise<Response> {
  let next: IteratorResult<unknown, void> | undefined;
  try {
    next = await stream.next();
  } catch (error) {
    return Response.json(rpcError(id, error));
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const result = next ?? (await stream.next());
        next = undefined;
        if (result.done) return controller.close();
        controller.enqueue(encoder.encode(formatSSEEvent(result.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent(rpcError(id, error))));
        controller.close();
      }
    },
    async cancel() {
      await stream.return(undefined);
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}

async function jsonRpc(request: Request, peer: Peer, ctx: ExecutionContext): Promise<Response> {
  let body: Record<string, unknown>;
  try {
    // Any JSON value: the transport checks the request's shape itself.
    body = await request.json();
  } catch {
    return Response.json({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Invalid JSON payload." },
    });
  }
  const id = typeof body?.id === "string" || typeof body?.id === "number" ? body.id : null;
  const context = defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(
      request.headers.get(HTTP_EXTENSION_HEADER) ?? undefined,
    ),
    user: new UnauthenticatedUser(),
    headers: Object.fromEntries(request.headers),
    requestedVersion: request.headers.get(A2A_VERSION_HEADER) ?? undefined,
  });
  try {
    validateVersion(context.requestedVersion, peer.card, "JSONRPC");
  } catch (error) {
    return Response.json(rpcError(id, error));
  }
  const result = await peer.transport.handle(body, context);
  if (Symbol.asyncIterator in result) return sse(result, id);
  // With returnImmediately the SDK answers at the first event and goes on writing the task.
  const task = (result as { result?: { task?: { id?: unknown } } }).result?.task;
  if (typeof task?.id === "string") ctx.waitUntil(peer.store.settled(task.id));
  return Response.json(result);
}

export default {
  async fetch(request, env, ctx): Promise<Response> {
    const url = new URL(request.url);
    const current = peerFor(env, url.origin);
    if (request.method === "GET" && url.pathname === `/${AGENT_CARD_PATH}`)
      return Response.json(AgentCard.toJSON(await current.handler.getAgentCard()));
    if (request.method === "GET" && url.pathname === "/health") return Response.json({ ok: true });
    if (request.method === "POST" && url.pathname === "/") return jsonRpc(request, current, ctx);
    return Response.json({ error: "not found" }, { status: 404 });
  },
} satisfies ExportedHandler<SdkWorkerEnv>;
