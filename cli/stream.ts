/** Sending a message and showing its stream (shared by stream, send and chat). */
import {
  Message as SdkMessage,
  Task as SdkTask,
  SendMessageRequest,
  StreamResponse,
} from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { type Out, TaskView } from "./render.ts";
import { Spinner } from "./spinner.ts";

type Json = Record<string, unknown>;

/** Standard output, colored on a terminal unless NO_COLOR is set. */
export const stdout: Out = {
  write: (text) => process.stdout.write(text),
  color: process.stdout.isTTY === true && !process.env.NO_COLOR,
};

/** A v1.0 SendMessageRequest with one text part. */
export function textRequest(
  text: string,
  options: { contextId?: string; taskId?: string; blocking: boolean },
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts: [{ text }],
      ...(options.contextId ? { contextId: options.contextId } : {}),
      ...(options.taskId ? { taskId: options.taskId } : {}),
    },
    configuration: { returnImmediately: !options.blocking },
  });
}

/** A send result as JSON: the task, or `{message}` when the agent answered with a message. */
export const taskJson = (result: SdkTask | SdkMessage): Json =>
  "messageId" in result ? { message: SdkMessage.toJSON(result) } : (SdkTask.toJSON(result) as Json);

/** Sends and shows the stream; returns the view (task id, state, answer). */
export async function streamTo(
  client: Client,
  request: SendMessageRequest,
  json: boolean,
): Promise<TaskView> {
  const view = new TaskView(json ? { write: () => {}, color: false } : stdout);
  const spinner = new Spinner(() => view.atLineStart && !json);
  try {
    for await (const event of client.sendMessageStream(request)) {
      spinner.pause();
      const wire = StreamResponse.toJSON(event) as Json;
      if (json) process.stdout.write(`${JSON.stringify(wire)}\n`);
      view.event(wire);
      spinner.resume(view.state);
    }
  } finally {
    spinner.stop();
  }
  if (!json) view.end();
  return view;
}
