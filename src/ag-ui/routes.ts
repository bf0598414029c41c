/**
 * The AG-UI face of every agent, pinned:
 *   POST /agents/<name>/ag-ui   a RunAgentInput in (JSON only), AG-UI events out (SSE, or AG-UI's
 *                               protobuf framing when the Accept header names its type; the
 *                               encoder is loaded with the first run an isolate serves)
 * Behind the same authentication, body limit and message rate as the A2A endpoints (the body is
 * read once at the edge, edge/face-call.ts: 415 for a body not sent as JSON, 400 for one nested
 * deeper than the edge's bound; a run counts as a message and holds a stream lease:
 * users/rate-limit.ts), on the same task objects through
 * the same port as the MCP face. threadId is the conversation (contextId); a task that waits for
 * the person ends the run with an interrupt whose id is the task's, which the next run answers
 * (`resume`); a run sent again with the same runId meets its task and follows it from its log. A
 * new run on a thread whose task still works sends its message to that task as a live message
 * (protocol/live-message.ts: it reads it at its next step) and follows it.
 * Bad input is a JSON 400 before any event; once the stream started, a failure is RUN_ERROR and
 * the stream ends. An open run re-checks its caller's credentials as A2A streams do (edge/sse.ts):
 * revoked, it ends with a RUN_ERROR (code UNAUTHENTICATED) that says so.
 */

import type { BaseEvent } from "@ag-ui/core";
import type { Context } from "hono";
import { Hono } from "hono";
import { authenticate } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import { agentNamed, internalErrorLogger } from "../edge/agent-request.ts";
import { callerMessage, restFailure, scrub } from "../edge/errors.ts";
import { edgeCall, faceCall } from "../edge/face-call.ts";
import { accepts } from "../edge/media-types.ts";
import { REVOKED_MESSAGE, watchCredentials } from "../edge/sse.ts";
import { type TaskPort, taskPort } from "../edge/task-port.ts";
import { bodyLimit } from "../platform/body-limit.ts";
import { HttpError } from "../platform/http-error.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { asLiveMessage } from "../protocol/live-message.ts";
import type { Message, StreamEvent } from "../protocol/wire.ts";
import { limitRequests } from "../users/rate-limit.ts";
import { runRequest } from "./run-input.ts";
import { RunTranslator } from "./translate.ts";

/** Every run sends a message and holds its stream while the task works. */
const RUN_CALL = { method: "ag-ui run", sends: true, streams: true } as const;

/** What a run's wait for its next event gives when the caller's credentials were revoked. */
const REVOKED = Symbol("revoked");

/** The SSE comment that keeps an idle run's connection open. */
const KEEPALIVE = new TextEncoder().encode(": keepalive\n\n");

/**
 * An error raised before the run's first event, as the HTTP error it is: an A2A error with its
 * status (the error table); an internal one (the one scrub) goes on to onError, which logs it.
 */
function beforeStream(error: unknown): never {
  if (error instanceof HttpError || scrub(error)) throw error;
  const { status } = restFailure(error, "1.0");
  throw new HttpError(status as 400, (error as Error).message, { details: true });
}

/** A resume names a task of this thread (the interrupt's id); a 404 for any other task id. */
async function checkInterrupt(port: TaskPort, taskId: string, threadId: string): Promise<void> {
  const task = await port.get(taskId, 0).catch(() => null);
  if (task?.contextId !== threadId)
    throw new HttpError(404, `resume: no interrupt ${taskId.slice(0, 100)} in this thread`, {
      details: true,
    });
}

/**
 * A new run's message, sent to the thread's task that is still working, if any, as a live message
 * (it reads it at its next step and the run follows that task); otherwise as it is: a new task.
 */
async function steering(port: TaskPort, threadId: string, message: Message): Promise<Message> {
  if (message.taskId !== undefined) return message;
  const { tasks } = await port.list({
    contextId: threadId,
    status: "TASK_STATE_WORKING",
    pageSize: 1,
  });
  const working = tasks[0];
  if (!working) return message;
  // A run sent again (a client reconnecting) whose own task works follows it from its log.
  const history = (await port.get(working.id)).history ?? [];
  if (history.some((m) => m.messageId === message.messageId)) return message;
  return asLiveMessage({ ...message, taskId: working.id });
}

async function serveRun(c: Context<AppEnv>): Promise<Response> {
  const agent = agentNamed(c, c.req.param("name") ?? "");
  c.set("agent", agent.name);
  const { body, refusal } = edgeCall(c, "faceCall");
  if (refusal) throw new HttpError(refusal.status, refusal.message, { details: true });
  const run = await runRequest(body);
  const port = taskPort(c, agent);
  const translator = new RunTranslator(run.threadId, run.runId);
  const first: BaseEvent[] = [translator.started()];
  let source: AsyncGenerator<StreamEvent, void, undefined> | null = null;
  try {
    const answered = run.action.kind === "cancel" ? run.action.taskId : run.action.message.taskId;
    if (answered !== undefined) await checkInterrupt(port, answered, run.threadId);
    if (run.action.kind === "cancel") {
      first.push(...translator.translate({ task: await port.cancel(run.action.taskId) }));
    } else {
      source = port.send(await steering(port, run.threadId, run.action.message));
      const head = await source.next();
      if (!head.done) first.push(...translator.translate(head.value));
    }
  } catch (error) {
    beforeStream(error);
  }
  // Loaded by an isolate's first run, not at its start: the encoder brings AG-UI's protobuf
  // framing (@bufbuild/protobuf, AG-UI's zod schemas), which a task object never needs.
  const { AGUI_MEDIA_TYPE, EventEncoder } = await import("@ag-ui/encoder");
  // SSE unless the client names AG-UI's protobuf type itself (`*/*` is not asking for it).
  const protobuf = accepts(c.req.header("Accept") ?? "", AGUI_MEDIA_TYPE);
  const encoder = new EventEncoder({ accept: protobuf ? AGUI_MEDIA_TYPE : "text/event-stream" });
  const logInternal = internalErrorLogger(c);
  const keepaliveMs = loadConfig(c.env).sseKeepaliveMs;
  const stillAuthorized = c.get("authCheck");
  /** Stops the keepalive and the credential checks. */
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (events: BaseEvent[]) => {
        for (const event of events) controller.enqueue(encoder.encodeBinary(event));
      };
      const sse = encoder.getContentType() === "text/event-stream";
      const keepalive = sse ? setInterval(() => controller.enqueue(KEEPALIVE), keepaliveMs) : null;
      // Each wait for the next event gets its own wake-up: one promise raced against every event
      // would keep a reaction, and so the event, per event of the run.
      let revokedNow = false;
      let wake = () => {};
      const nextOrRevoked = (from: AsyncGenerator<StreamEvent, void, undefined>) =>
        new Promise<IteratorResult<StreamEvent, void> | typeof REVOKED>((resolve, reject) => {
          wake = () => resolve(REVOKED);
          if (revokedNow) wake();
          else from.next().then(resolve, reject);
        });
      const stopRecheck = watchCredentials(stillAuthorized, () => {
        revokedNow = true;
        wake();
      });
      stop = () => {
        if (keepalive) clearInterval(keepalive);
        stopRecheck();
      };
      let cut = false;
      try {
        send(first);
        while (source && !translator.done) {
          const next = await nextOrRevoked(source);
          if (next === REVOKED) {
            cut = true;
            send(translator.broken(REVOKED_MESSAGE, "UNAUTHENTICATED"));
          } else if (next.done) break;
          else send(translator.translate(next.value));
        }
        send(
          translator.broken(
            "The task's stream ended before the task did; run again with the same runId to follow it.",
          ),
        );
      } catch (error) {
        send(translator.broken(callerMessage(error, logInternal)));
      } finally {
        stop();
        // Cut off, the source may still wait for the task's next event: it is not waited for.
        const ended = source?.return(undefined).catch(() => undefined);
        if (!cut) await ended;
        controller.close();
      }
    },
    async cancel() {
      stop();
      await source?.return(undefined).catch(() => undefined);
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": encoder.getContentType(),
      "Cache-Control": "no-cache",
      "X-Accel-Buffering": "no",
    },
  });
}

/** Routes of the AG-UI face. */
export function agUiRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post(
    "/agents/:name/ag-ui",
    authenticate(),
    bodyLimit(),
    faceCall(() => RUN_CALL),
    limitRequests(),
    serveRun,
  );
  return app;
}
