/**
 * The SSE reader of the console and the CLI: events split across chunks, CRLF line ends,
 * multi-line data, the event type and id, `retry`, and events without data.
 */
import { describe, expect, it } from "vitest";
import { type SseEvent, sseEvents } from "../../../src/console/static/sse.ts";

/** A body that delivers `chunks` one read at a time. */
function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function read(chunks: string[], onRetry?: (ms: number) => void): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of sseEvents(body(chunks), onRetry)) events.push(event);
  return events;
}

describe("sseEvents", () => {
  it("reads events as they complete, whatever the chunks", async () => {
    expect(
      await read(['id: 1\ndata: {"a"', ":1}\n\nevent: agents\r\ndata: x\r\n", "data: y\r\n\r\n"]),
    ).toEqual([
      { event: "message", data: '{"a":1}', id: "1" },
      { event: "agents", data: "x\ny", id: undefined },
    ]);
  });

  it("hands on retry delays and skips events without data; a cut-off event is dropped", async () => {
    const delays: number[] = [];
    const events = await read(
      [": comment\n\nretry: 2500\n\nretry: soon\ndata:no space\n\ndata: unfinished"],
      (ms) => delays.push(ms),
    );
    expect(delays).toEqual([2500]);
    expect(events).toEqual([{ event: "message", data: "no space", id: undefined }]);
  });

  it("decodes a character split between chunks", async () => {
    const bytes = new TextEncoder().encode("data: café\n\n");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 10));
        controller.enqueue(bytes.slice(10));
        controller.close();
      },
    });
    const events: SseEvent[] = [];
    for await (const event of sseEvents(stream)) events.push(event);
    expect(events.map((e) => e.data)).toEqual(["café"]);
  });
});
