/** Helpers around the official @a2a-js/sdk client for the end-to-end tests. Node only. */
import { Message, SendMessageRequest, type StreamResponse, Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

/** A client factory whose requests carry `Authorization: Bearer <token>` (none when null). */
export function bearerClients(token: string | null): ClientFactory {
  return new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({
        fetchImpl: (input, init) => {
          const headers = new Headers(init?.headers);
          if (token) headers.set("Authorization", `Bearer ${token}`);
          return fetch(input, { ...init, headers });
        },
      }),
    ],
  });
}

/**
 * The raw body of a JSON-RPC v1.0 `method` call (SendMessage, SendStreamingMessage) of one text
 * message, in conversation `contextId` when given.
 */
export function messageCallBody(method: string, text: string, contextId?: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method,
    params: {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        ...(contextId ? { contextId } : {}),
        parts: [{ text }],
      },
    },
  });
}

/** A v1.0 SendMessageRequest with one text part. */
export function textRequest(
  text: string,
  configuration: Record<string, unknown> = {},
  message: Record<string, unknown> = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...message },
    configuration,
  });
}

/** The task a sendMessage call returned (fails the test if it returned a Message). */
export function asTask(result: Message | Task): Task {
  if ("messageId" in result) throw new Error("expected a Task, got a Message");
  return result;
}

/** Text of the task's answer artifact. */
export function answerOf(task: Task): string {
  return task.artifacts
    .filter((a) => a.artifactId === "answer")
    .flatMap((a) => a.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")))
    .join("");
}

/** The state name of a task (e.g. TASK_STATE_COMPLETED). */
export function stateOf(task: Task): string {
  return TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED];
}

/** Applies a stream's artifact updates like a client must (append or replace). */
export function applyStream(events: readonly StreamResponse[], initial = ""): string {
  let text = initial;
  for (const event of events) {
    if (event.payload?.$case !== "artifactUpdate") continue;
    const update = event.payload.value;
    const piece = (update.artifact?.parts ?? [])
      .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
      .join("");
    text = update.append ? text + piece : piece;
  }
  return text;
}

/** Polls GetTask until the task reaches `state` (room for a loaded machine: it returns once it does). */
export async function waitForState(
  client: Client,
  id: string,
  state: string,
  timeoutMs = 60_000,
): Promise<Task> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await client.getTask({ tenant: "", id });
    if (stateOf(task) === state) return task;
    if (Date.now() > deadline)
      throw new Error(`task ${id} is ${stateOf(task)}, not ${state}, after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { Message, Task };

/** Registers a scripted scenario with the fake model at `modelUrl`; returns its marker. */
export async function scenario(modelUrl: string, id: string, turns: unknown[]): Promise<string> {
  const response = await fetch(`${modelUrl}/_scripted/scenarios`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id, turns }),
  });
  if (response.status !== 201) throw new Error(`scenario rejected: ${await response.text()}`);
  return `[[scenario:${id}]]`;
}
