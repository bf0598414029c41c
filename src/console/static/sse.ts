/**
 * Server-Sent Events read off a response body, for the harness's own clients: the web console
 * (esbuild bundles this file with the console's modules) and the `a2a` CLI (Node runs it as
 * TypeScript). Events end at a blank line (CRLF read as LF); the `data` lines of one event are
 * joined with "\n", and an event without data is not handed on (a `retry` in it still counts).
 * Reads only the stream it is given; no DOM, no Node APIs.
 */

/** One SSE event: its type (`message` when it names none), its data, and its id when sent. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** The SSE events of `body` as they arrive; a `retry` field's delay (ms) goes to `onRetry`. */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  onRetry?: (ms: number) => void,
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replaceAll("\r\n", "\n");
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const lines = buffer.slice(0, end).split("\n");
      buffer = buffer.slice(end + 2);
      const field = (name: string) =>
        lines
          .filter((l) => l.startsWith(`${name}:`))
          .map((l) => l.slice(name.length + 1).replace(/^ /, ""));
      const [retry] = field("retry");
      if (retry && /^\d+$/.test(retry)) onRetry?.(Number(retry));
      const data = field("data").join("\n");
      if (data) yield { event: field("event")[0] || "message", data, id: field("id")[0] };
    }
  }
}
