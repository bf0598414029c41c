/**
 * The A2A calls the benchmarks make, the same for every server under test: a blocking v1.0
 * JSON-RPC `SendMessage` of a one-turn task (`[[reply:ok]]` for the scripted model), a streaming
 * `SendStreamingMessage` read to its end, and an Agent Card fetch. Node only.
 */

/** One A2A server under test: its name in the tables and its base URL (card, JSON-RPC at `/`). */
export interface Target {
  name: string;
  base: string;
  /** When present, counts the tasks sent to the server (a check of what it exported). */
  sent?: { tasks: number };
}

const rpcBody = (method: string, text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method,
    params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } },
  });

/** A blocking one-turn `SendMessage`; true when the task came back completed. */
export async function send(target: Target): Promise<boolean> {
  if (target.sent) target.sent.tasks++;
  const response = await fetch(`${target.base}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: rpcBody("SendMessage", "[[reply:ok]]"),
  });
  const body = (await response.json()) as { result?: { task?: { status?: { state?: string } } } };
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
      "content-type": "application/json",
      "A2A-Version": "1.0",
      Accept: "text/event-stream",
    },
    body: rpcBody("SendStreamingMessage", "[[reply:a streamed answer]]"),
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
