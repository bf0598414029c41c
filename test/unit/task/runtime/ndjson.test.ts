import { describe, expect, it } from "vitest";
import { decodeLines, encodeLine } from "../../../../src/task/runtime/ndjson.ts";

/** A byte stream of `chunks`, closed after the last. */
const streamOf = (chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });

const collect = async <T>(stream: ReadableStream<Uint8Array>) => {
  const values: T[] = [];
  for await (const value of decodeLines<T>(stream)) values.push(value);
  return values;
};

describe("newline-delimited JSON", () => {
  it("decodes values split anywhere, a character of several bytes included", async () => {
    const values = [{ text: "olá — 😀" }, { seq: 2 }, "end"];
    const bytes = new Uint8Array(values.flatMap((v) => [...encodeLine(v)]));
    // Every split point: one chunk per byte at its worst.
    for (const size of [1, 2, 3, 5, bytes.length]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
      expect(await collect(streamOf(chunks))).toEqual(values);
    }
  });

  it("reads a last value without its newline, and skips blank lines", async () => {
    const text = new TextEncoder().encode('{"a":1}\n\n  \n{"b":2}');
    expect(await collect(streamOf([text]))).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("cancels the stream when the reader stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encodeLine({ n: 1 }));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _value of decodeLines(stream)) break;
    expect(cancelled).toBe(true);
  });
});
