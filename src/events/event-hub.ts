/**
 * The event hub: one Durable Object (named {@link HUB_NAME}) that every open `GET /api/events`
 * stream subscribes to, so a change made in one isolate reaches streams held by any other (an
 * isolate cannot reach another's connections). Each stream's Worker holds a WebSocket to the hub,
 * accepted with the hibernation API: between changes the hub holds the sockets without running
 * (no duration billed), and a publish wakes it to send one message to each. It stores nothing; at
 * most {@link MAX_LISTENERS} sockets are held, and {@link MAX_PER_CALLER} per caller (a user, or
 * an IP for anonymous callers: the `X-Listener` key, a socket's tag), 503 past either. A message is an
 * {@link AgentsChange}: the roster itself is read by each stream's Worker (agents/roster.ts).
 */
import { HarnessObject } from "../platform/harness-object.ts";

/** The name of the one hub object. */
export const HUB_NAME = "events";

/** Open event streams a deployment holds at most. */
export const MAX_LISTENERS = 5_000;

/** Open event streams one caller (a user, or an IP for anonymous callers) holds at most. */
export const MAX_PER_CALLER = 10;

/** What changed: an identity uploaded or dropped, a reload; `agent` names the one changed. */
export interface AgentsChange {
  type: "agents";
  reason: "upload" | "delete" | "reload";
  agent?: string;
  at: string;
}

/** The hub of the deployment's event streams. */
export class EventHub extends HarnessObject {
  constructor(ctx: DurableObjectState, rawEnv: Env) {
    super(ctx, rawEnv, "events");
  }

  /** Nothing to open: the hub keeps no storage. */
  protected override open(): void {}

  /** Accepts a stream's WebSocket (hibernatable). */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket")
      return new Response("expected a WebSocket upgrade", { status: 426 });
    const caller = (request.headers.get("X-Listener") ?? "unknown").slice(0, 200);
    if (this.ctx.getWebSockets().length >= MAX_LISTENERS)
      return new Response("too many listeners", { status: 503 });
    if (this.ctx.getWebSockets(caller).length >= MAX_PER_CALLER)
      return new Response("too many listeners of this caller", { status: 429 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server, [caller]);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Sends `change` to every stream; returns how many were told. */
  publish(change: AgentsChange): number {
    const text = JSON.stringify(change);
    let told = 0;
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(text);
        told++;
      } catch {
        // A socket closing as we send: its stream ends and its client reconnects.
      }
    }
    return told;
  }

  /** Streams send nothing. */
  override webSocketMessage(): void {}

  /** Completes the close a stream started. */
  override webSocketClose(socket: WebSocket, code: number): void {
    try {
      socket.close(code === 1005 ? 1000 : code, "closed");
    } catch {
      // Already closed.
    }
  }
}
