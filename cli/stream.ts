/**
 * Sending a message and showing its stream (shared by stream, send and chat). A stream that drops
 * before the task ends (the connection cut, the server restarted) is resumed with SubscribeToTask
 * from the last SSE event id seen (`Last-Event-ID`), so nothing is shown twice or lost; retries
 * back off for up to two minutes before giving up with what to run instead. Following a task
 * that has already ended shows it as it ended.
 */
import {
  Message as SdkMessage,
  Task as SdkTask,
  SendMessageRequest,
  StreamResponse,
} from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { CliError } from "./errors.ts";
import { type Out, TaskView } from "./render.ts";
import { Spinner } from "./spinner.ts";
import { agentArgs, type Http, type Target } from "./target.ts";

type Json = Record<string, unknown>;

/** Standard output, colored on a terminal unless NO_COLOR is set. */
export const stdout: Out = {
  write: (text) => process.stdout.write(text),
  color: process.stdout.isTTY === true && !process.env.NO_COLOR,
};

/** A v1.0 SendMessageRequest with a text part (none for "" with files) and `files` parts after it. */
export function textRequest(
  text: string,
  options: { contextId?: string; taskId?: string; blocking: boolean; files?: Json[] },
): SendMessageRequest {
  const files = options.files ?? [];
  return SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts: [...(text !== "" || files.length === 0 ? [{ text }] : []), ...files],
      ...(options.contextId ? { contextId: options.contextId } : {}),
      ...(options.taskId ? { taskId: options.taskId } : {}),
    },
    configuration: { returnImmediately: !options.blocking },
  });
}

/** A send result as JSON: the task, or `{message}` when the agent answered with a message. */
export const taskJson = (result: SdkTask | SdkMessage): Json =>
  "messageId" in result ? { message: SdkMessage.toJSON(result) } : (SdkTask.toJSON(result) as Json);

/** States after which a stream has nothing more to say. */
const SETTLED = new Set([
  "completed",
  "failed",
  "canceled",
  "rejected",
  "input-required",
  "auth-required",
]);
const RESUME_FOR_MS = 120_000;

/** Whether `error` is the connection failing (not the agent answering with an error). */
function connectionFailed(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error.cause as { code?: string } | undefined)?.code;
  return error instanceof TypeError || Boolean(code) || error.name === "AbortError";
}

/** Whether `error` is a connection that was never made (so nothing was sent). */
const neverConnected = (error: unknown) =>
  ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"].includes(
    String(((error as Error).cause as { code?: string } | undefined)?.code),
  );

/** A client for one agent and the HTTP it runs on. */
export interface Session {
  client: Client;
  http: Http;
  target: Target;
  version: "1.0" | "0.3";
}

/** How a stream is shown: live on stdout, one JSON event per line, or not at all (send). */
export type StreamOutput = "live" | "json" | "quiet";

/** What to stream: a message to send, or a task to follow (SubscribeToTask). */
export type StreamStart = { request: SendMessageRequest } | { follow: string };

/**
 * The task the CLI is streaming, once its id is known (Ctrl-C says how to follow or cancel it),
 * and the conversation the message went to.
 */
export const streaming: { taskId: string; contextId: string } = { taskId: "", contextId: "" };

/** Where to find a task whose id never arrived. */
function cutBeforeId(target: Target, contextId: string | undefined): CliError {
  const find = `npm run a2a -- tasks ${agentArgs(target)}${contextId ? ` --context ${contextId}` : ""}`;
  return new CliError(
    `the connection to ${new URL(target.url).origin} was cut before the task's id arrived; the message may have started a task, which then runs on: ${find} finds it (look before sending again)`,
  );
}

/** Sends (or follows a task) and shows the stream, resuming it if it drops; returns the view. */
export async function streamTo(
  { client, http, target }: Session,
  start: StreamStart,
  output: StreamOutput,
  onTask: (view: TaskView) => void = () => {},
): Promise<TaskView> {
  const shown = output === "live";
  const view = new TaskView(shown ? stdout : { write: () => {}, color: false });
  const note = (text: string) => {
    if (shown) view.note(text);
  };
  const spinner = new Spinner(() => view.atLineStart && output !== "json");
  const contextId = "request" in start ? start.request.message?.contextId : undefined;
  streaming.taskId = "follow" in start ? start.follow : "";
  streaming.contextId = contextId ?? "";
  let events =
    "request" in start
      ? client.sendMessageStream(start.request)
      : client.resubscribeTask({ tenant: "", id: start.follow });
  // While resuming: when the stream dropped and the last event id seen then.
  let dropped: { at: number; after: string | undefined } | null = null;
  spinner.resume("working");
  try {
    for (;;) {
      try {
        for await (const event of events) {
          spinner.pause();
          if (dropped && http.lastEventId !== dropped.after) {
            note(`… resumed after event ${dropped.after ?? "0"}`);
            dropped = null;
          }
          const wire = StreamResponse.toJSON(event) as Json;
          if (output === "json") process.stdout.write(`${JSON.stringify(wire)}\n`);
          const known = view.taskId;
          view.event(wire);
          if (!known && view.taskId) {
            streaming.taskId = view.taskId;
            streaming.contextId = view.contextId;
            onTask(view);
          }
          spinner.resume(view.state);
        }
        if (!view.taskId || SETTLED.has(view.state)) break;
      } catch (error) {
        if (!view.taskId && connectionFailed(error) && !neverConnected(error))
          throw cutBeforeId(target, contextId);
        if (!view.taskId || !connectionFailed(error)) throw error;
      }
      // The connection failed, or the stream ended while the task still works: resume.
      if (!dropped) note(`… connection lost; resuming task ${view.taskId}`);
      dropped ??= { at: Date.now(), after: http.lastEventId };
      const waited = Date.now() - dropped.at;
      if (waited > RESUME_FOR_MS)
        throw new CliError(
          `lost the stream of task ${view.taskId} and could not resume it for two minutes; it may run on: follow it with npm run a2a -- stream ${agentArgs(target)} --task ${view.taskId}, or see it with npm run a2a -- get ${agentArgs(target)} ${view.taskId}`,
        );
      spinner.pause();
      await new Promise((r) => setTimeout(r, Math.min(5_000, 250 + waited / 4)));
      spinner.resume("reconnecting");
      events = client.resubscribeTask(
        { tenant: "", id: view.taskId },
        http.lastEventId ? { serviceParameters: { "Last-Event-ID": http.lastEventId } } : {},
      );
    }
  } finally {
    spinner.stop();
  }
  if (shown) view.end();
  return view;
}

/**
 * Follows task `id` (`stream --task`): its stream while it runs; a task that has already ended
 * (SubscribeToTask refuses it) is read with GetTask and shown the same way, its answer included.
 */
export async function followTask(
  session: Session,
  id: string,
  output: "live" | "json",
): Promise<TaskView> {
  try {
    return await streamTo(session, { follow: id }, output);
  } catch (error) {
    if (!(error instanceof UnsupportedOperationError && /has ended/.test(error.message)))
      throw error;
  }
  const task = SdkTask.toJSON(await session.client.getTask({ tenant: "", id })) as Json;
  const shown = output === "live";
  const view = new TaskView(shown ? stdout : { write: () => {}, color: false });
  if (!shown) process.stdout.write(`${JSON.stringify({ task })}\n`);
  view.event({ task });
  if (shown) view.stateLine();
  return view;
}
