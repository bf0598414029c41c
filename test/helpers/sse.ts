/** Reading the Worker's SSE streams in tests inside workerd, event by event or to the end. */
import type { RpcResponse } from "./a2a.ts";

/** One parsed SSE event. */
export interface SseEvent {
  id: string | null;
  data: string;
}

/** Reads SSE events from a response as they arrive. */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) throw new Error("no body");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = frame.split("\n");
        const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6));
        const id = lines.find((l) => l.startsWith("id: "))?.slice(4) ?? null;
        if (data.length > 0) yield { id, data: data.join("\n") };
        end = buffer.indexOf("\n\n");
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Collects every SSE event of a finite stream, parsed as JSON-RPC responses. */
export async function collectSse(
  response: Response,
): Promise<Array<{ id: string | null; body: RpcResponse }>> {
  const out: Array<{ id: string | null; body: RpcResponse }> = [];
  for await (const event of sseEvents(response))
    out.push({ id: event.id, body: JSON.parse(event.data) as RpcResponse });
  return out;
}
