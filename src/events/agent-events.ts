/**
 * Agent changes told to open consoles and CLI chats:
 *   GET /api/events   an SSE stream (any caller the deployment serves): `retry: 3000`, then an
 *                     `agents` event with the roster now (`reason: "connected"`), then one after
 *                     every change anywhere in the deployment (`reason`: `upload`, `delete`,
 *                     `reload`; `agent`: the one changed), and a `: keepalive` comment every
 *                     SSE_KEEPALIVE_MS. Each `agents` event's data is the `GET /agents` roster
 *                     with `reason`, `agent` and `at`.
 * The stream's Worker subscribes to the event hub (event-hub.ts) with a WebSocket; a change is
 * published to the hub by the isolate that made it, and each stream then runs the overrides check
 * at once (a head of the R2 index) and sends the roster it finds, so the event never carries a
 * stale list. The stream ends when the hub's socket closes (a deploy, `wrangler dev` reloading on a
 * change under agents/ or src/): clients reconnect, and the `connected` event says what is there
 * now, a broken agent file included. An open stream re-checks its caller's credentials every
 * STREAM_AUTH_RECHECK_MS (edge/sse.ts, as the A2A and AG-UI streams do); once they are revoked it
 * sends one `error` event ({@link REVOKED_ERROR}) and ends.
 */
import { type Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { checkAgentsNow } from "../agents/overrides.ts";
import { agentRoster } from "../agents/roster.ts";
import { authenticate } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import { publicBaseUrl } from "../config/public-url.ts";
import { REVOKED_MESSAGE, watchCredentials } from "../edge/sse.ts";
import { HttpError } from "../platform/http-error.ts";
import { errorFields, log } from "../platform/logging.ts";
import { stubByName } from "../platform/object-stub.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { counterKey } from "../users/limits.ts";
import { type AgentsChange, HUB_NAME, MAX_PER_CALLER } from "./event-hub.ts";

/** The data of the `error` event that ends a stream whose caller's credentials were revoked. */
export const REVOKED_ERROR = { error: REVOKED_MESSAGE };

/** The reconnection delay clients are asked to wait (SSE `retry`). */
export const RECONNECT_MS = 3_000;

const hub = (env: Env) => stubByName(env.EVENTS, HUB_NAME);

/**
 * Tells every open event stream that the agents changed; resolves with how many were told (0 if
 * the hub could not be reached: the change itself stands, and the streams' clients see it on
 * their next reconnect).
 */
export async function publishAgentsChanged(
  env: Env,
  reason: AgentsChange["reason"],
  agent?: string,
): Promise<number> {
  const change: AgentsChange = {
    type: "agents",
    reason,
    ...(agent ? { agent } : {}),
    at: new Date().toISOString(),
  };
  try {
    return await hub(env).publish(change);
  } catch (error) {
    log("warn", "agent change not published", { reason, ...errorFields(error) });
    return 0;
  }
}

/** A hub message as a change, or null when it is not one. */
function changeOf(data: unknown): Omit<AgentsChange, "type"> | null {
  if (typeof data !== "string") return null;
  try {
    const change = JSON.parse(data) as Partial<AgentsChange>;
    if (change.type !== "agents" || typeof change.reason !== "string") return null;
    return {
      reason: change.reason,
      ...(typeof change.agent === "string" ? { agent: change.agent } : {}),
      at: typeof change.at === "string" ? change.at : new Date().toISOString(),
    };
  } catch {
    return null;
  }
}

/**
 * A socket subscribed to the hub for `caller`; a 429 when the caller holds its maximum of streams,
 * a 503 when the hub does.
 */
async function subscribe(env: Env, caller: string): Promise<WebSocket> {
  const answer = await hub(env).fetch("https://events.hub/subscribe", {
    headers: { Upgrade: "websocket", "X-Listener": caller },
  });
  const socket = answer.webSocket;
  if (answer.status === 429)
    throw new HttpError(429, `at most ${MAX_PER_CALLER} open event streams per caller`, {
      headers: { "Retry-After": "30" },
    });
  if (answer.status !== 101 || !socket)
    throw new HttpError(503, "too many open event streams: try again later", {
      headers: { "Retry-After": "30" },
    });
  socket.accept();
  return socket;
}

function eventStream(c: Context<AppEnv>, socket: WebSocket): Response {
  const env = c.env;
  const config = loadConfig(env);
  const base = publicBaseUrl(config, c.req.url);
  return streamSSE(c, async (stream) => {
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    // One roster at a time, in the order the changes came.
    let queue = Promise.resolve();
    const tell = (change: Omit<AgentsChange, "type"> | { reason: "connected"; at: string }) => {
      queue = queue
        .then(async () => {
          await checkAgentsNow(env);
          await stream.writeSSE({
            event: "agents",
            data: JSON.stringify({ ...change, ...agentRoster(env, base) }),
          });
        })
        .catch(end);
    };
    socket.addEventListener("message", (event) => {
      const change = changeOf(event.data);
      if (change) tell(change);
    });
    socket.addEventListener("close", () => end());
    socket.addEventListener("error", () => end());
    stream.onAbort(() => end());
    const keepalive = setInterval(
      () => void stream.write(": keepalive\n\n").catch(end),
      config.sseKeepaliveMs,
    );
    // A caller whose credentials were revoked hears it once, and the stream ends, as A2A's do.
    const stopRecheck = watchCredentials(c.get("authCheck"), () => {
      queue = queue
        .then(() => stream.writeSSE({ event: "error", data: JSON.stringify(REVOKED_ERROR) }))
        .catch(() => {})
        .then(end);
    });
    await stream.write(`retry: ${RECONNECT_MS}\n\n`);
    tell({ reason: "connected", at: new Date().toISOString() });
    await ended;
    clearInterval(keepalive);
    stopRecheck();
    try {
      socket.close(1000, "stream ended");
    } catch {
      // Already closed by the hub.
    }
  });
}

/** The event stream route. */
export function eventRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/events", authenticate(), async (c) => {
    const caller = counterKey(c.get("principal"), c.req.header("CF-Connecting-IP") ?? null);
    return eventStream(c, await subscribe(c.env, caller));
  });
  return app;
}
