/**
 * The A2A calls the benchmarks make, the same for every server under test: a blocking v1.0
 * JSON-RPC `SendMessage` of a text (of a one-turn task, `[[reply:ok]]` for the scripted model), a
 * streaming `SendStreamingMessage` read to its end, and an Agent Card fetch. Node only.
 */
import { messageCallBody } from "../test/e2e/client.ts";

/** One A2A server under test: its name in the tables and its base URL (card, JSON-RPC at `/`). */
export interface Target {
  name: string;
  base: string;
  /** When present, counts the tasks sent to the server (a check of what it exported). */
  sent?: { tasks: number };
  /** Headers every A2A call carries (a closed server: `Authorization: Bearer <token>`). */
  headers?: Record<string, string>;
}

/** The JSON-RPC answer of a blocking `SendMessage`, as the benchmarks read it. */
export interface SendAnswer {
  result?: { task?: { contextId?: string; status?: { state?: string } } };
}

/**
 * A blocking v1.0 `SendMessage` of `text` to the agent at `url` (in conversation `contextId` when
 * given, with `headers` too); its JSON-RPC answer.
 */
export async function sendText(
  url: string,
  text: string,
  contextId?: string,
  headers: Record<string, string> = {},
): Promise<SendAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", "A2A-Version": "1.0" },
    body: messageCallBody("SendMessage", text, contextId),
  });
  return (await response.json()) as SendAnswer;
}

/** A blocking one-turn `SendMessage`; true when the task came back completed. */
export async function send(target: Target): Promise<boolean> {
  if (target.sent) target.sent.tasks++;
  const body = await sendText(`${target.base}/`, "[[reply:ok]]", undefined, target.headers);
  return body.result?.task?.status?.state === "TASK_STATE_COMPLETED";
}

/** Fetches the Agent Card (the runtime's floor). */
export async function card(target: Target): Promise<void> {
  await (await fetch(`${target.base}/.well-known/agent-card.json`)).arrayBuffer();
}

/** Time to the first SSE event and to the first answer chunk of a streaming send, read to its end. */
export async function streamTimes(target: Target): Promise<{ first: number; chunk: number }> {
  if (target.sent) target.sent.tasks++;
  const start = performance.now();
  const response = await fetch(`${target.base}/`, {
    method: "POST",
    headers: {
      ...target.headers,
      "content-type": "application/json",
      "A2A-Version": "1.0",
      Accept: "text/event-stream",
    },
    body: messageCallBody("SendStreamingMessage", "[[reply:a streamed answer]]"),
  });
  if (!response.body) throw new Error("no stream");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let first = Number.NaN;
  let chunk = Number.NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    if (Number.isNaN(first) && buffer.includes("data:")) first = performance.now() - start;
    if (Number.isNaN(chunk) && buffer.includes('"artifactUpdate"'))
      chunk = performance.now() - start;
  }
  return { first, chunk };
}
