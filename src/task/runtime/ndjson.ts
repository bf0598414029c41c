/**
 * Newline-delimited JSON over byte streams: how a task object streams its events to the Worker
 * (a Durable Object RPC stream must carry bytes). One JSON value per line.
 */
import { storedJson } from "../../platform/stored-json.ts";

const encoder = new TextEncoder();

/** Encodes one value as a line of bytes. */
export function encodeLine(value: unknown): Uint8Array {
  return encoder.encode(`${JSON.stringify(value)}\n`);
}

/** Yields each JSON value of a newline-delimited byte stream, in order; cancels it if abandoned. */
export async function* decodeLines<T>(stream: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  // Decoded in the read loop (no TextDecoderStream stage: one pipe less per stream).
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let finished = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() !== "") yield storedJson<T>(line);
        newline = buffer.indexOf("\n");
      }
    }
    buffer += decoder.decode();
    if (buffer.trim() !== "") yield storedJson<T>(buffer);
  } finally {
    // The consumer stopped early (client went away): cancel so the producer stops writing.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
