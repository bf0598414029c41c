/**
 * Edge limits, after authentication and the edge's one read of the body (a JSON-RPC call, an MCP
 * or AG-UI one): each new message (SendMessage, SendStreamingMessage and their v0.3 and REST
 * forms, an AG-UI run, an MCP tool call that sends, an upload to the files API) is admitted by
 * the caller's user object
 * against RATE_MESSAGES_PER_MINUTE (RATE_ANONYMOUS_PER_MINUTE per IP for unauthenticated
 * callers), and each stream holds a lease against MAX_CONCURRENT_STREAMS until it ends (an AG-UI
 * run, and an MCP tool call that sends, are both). Over a limit: 429 with Retry-After. The
 * isolate admits most requests from the slices the user object leased it (admission-lease.ts),
 * without a call on the request's path.
 */
import type { Context, MiddlewareHandler } from "hono";
import { type Config, loadConfig } from "../config/config.ts";
import { HttpError } from "../platform/http-error.ts";
import { matchesRoute, WORKSPACE_FILE_ROUTE } from "../platform/route-match.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { admitRequest } from "./admission-lease.ts";
import { counterKey } from "./limits.ts";

/** A stream's lease outlives any real stream; a lost release frees itself after this. */
const STREAM_LEASE_MS = 60 * 60_000;

/**
 * What the request does, as the edge read its call: a JSON-RPC one (`c.var.rpcCall`,
 * a2a/jsonrpc/rpc-call.ts), an HTTP+JSON one (`c.var.restCall`, a2a/rest/rest-call.ts: its
 * operation from the path as the router decoded it), or an MCP or AG-UI one (`c.var.faceCall`,
 * edge/face-call.ts). Neither the body nor the raw URL path is read here.
 */
function methodOf(c: Context<AppEnv>): { send: boolean; stream: boolean } {
  const call = c.get("rpcCall") ?? c.get("restCall") ?? c.get("faceCall");
  if (call) return { send: call.sends, stream: call.streams };
  // An upload to a workspace counts as a message (it puts a person's bytes in the agent's hands).
  const upload = c.req.method === "PUT" && matchesRoute(c, [WORKSPACE_FILE_ROUTE]);
  return { send: upload, stream: false };
}

/** A 429 with Retry-After. */
function tooMany(message: string, retryAfter: number): HttpError {
  return new HttpError(429, message, { headers: { "Retry-After": String(retryAfter) } });
}

/** Releases `release` once `body` ends or its reader goes away. */
function onEnd(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    release();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          finish();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
}

/** The messages a minute `principal` may send (0: unlimited). */
function messageRate(
  principal: AppEnv["Variables"]["principal"],
  limits: Config["limits"],
): number {
  return principal.via === "anonymous" ? limits.anonymousPerMinute : limits.messagesPerMinute;
}

/** Middleware: message rate and concurrent streams (after `authenticate`). */
export function limitRequests(): MiddlewareHandler<AppEnv> {
  return async function limits(c, next) {
    const { limits } = loadConfig(c.env);
    const { send, stream } = methodOf(c);
    if (!send && !stream) return next();
    const principal = c.get("principal");
    const key = counterKey(principal, c.req.header("CF-Connecting-IP") ?? null);
    const perMinute = send ? messageRate(principal, limits) : 0;
    const leased = stream && limits.concurrentStreams > 0;
    if (perMinute === 0 && !leased) return next();
    const background = (work: Promise<unknown>) => c.executionCtx.waitUntil(work.catch(() => {}));
    const slots = leased ? { max: limits.concurrentStreams, leaseMs: STREAM_LEASE_MS } : null;
    const admitted = await admitRequest(
      c.env,
      key,
      { perMinute, ttlMs: limits.admissionLeaseMs, ...(slots ? { stream: slots } : {}) },
      background,
    );
    if (!admitted.ok && "retryAfterSeconds" in admitted)
      throw tooMany(
        `Too many messages: the limit is ${perMinute} a minute. Retry after ${admitted.retryAfterSeconds} s.`,
        admitted.retryAfterSeconds,
      );
    if (!admitted.ok)
      throw tooMany(
        `Too many open streams: the limit is ${admitted.streams}. Close one and retry.`,
        5,
      );
    const { close } = admitted;
    if (!close) return next();
    const release = () => background(close());
    try {
      await next();
    } catch (error) {
      release();
      throw error;
    }
    const response = c.res;
    if (
      !response.body ||
      !(response.headers.get("content-type") ?? "").includes("text/event-stream")
    ) {
      release();
      return;
    }
    c.res = new Response(onEnd(response.body, release), response);
  };
}
