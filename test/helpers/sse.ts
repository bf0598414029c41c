/**
 * Reading the Worker's SSE streams in tests inside workerd, event by event or to the end (a
 * streaming call's results too), and the answer a client has once it applied a stream's artifact
 * updates.
 */
import { postRpc, postRpcV03, type RpcResponse } from "./a2a.ts";

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

/** A streamed JSON-RPC result as the tests read it (`statusUpdate`, `artifactUpdate`, ...). */
export type StreamResult = Record<string, Record<string, unknown>>;

/**
 * Posts the streaming call `method` to the default agent as a v1.0 client (a v0.3 one when `v03`);
 * the result of every event, to the stream's end.
 */
export async function streamedResults(
  method: string,
  params: unknown,
  v03 = false,
): Promise<StreamResult[]> {
  const response = await (v03 ? postRpcV03 : postRpc)("/", method, params);
  return (await collectSse(response)).map((e) => e.body.result as StreamResult);
}

/** An artifact update of a stream. */
export type ArtifactChunk = {
  artifact: { parts: Array<{ text: string }> };
  append?: boolean;
  lastChunk?: boolean;
};

/**
 * Applies a stream's artifact updates the way a client must (append or replace): the text, how
 * much of it came appended, and the updates.
 */
export function applyChunks(results: readonly StreamResult[]): {
  text: string;
  appended: number;
  chunks: ArtifactChunk[];
} {
  const chunks = results.flatMap((r) =>
    r.artifactUpdate ? [r.artifactUpdate as ArtifactChunk] : [],
  );
  let text = "";
  let appended = 0;
  for (const chunk of chunks) {
    const piece = chunk.artifact.parts.map((p) => p.text).join("");
    if (chunk.append) {
      text += piece;
      appended += piece.length;
    } else text = piece;
  }
  return { text, appended, chunks };
}
