/**
 * Reads a Server-Sent Events response into the `data` of each event, until the server closes the
 * stream or `timeoutMs` passes (then the read is cancelled and the stream reported not closed).
 * Comments (`: keepalive`) and other fields are skipped; a multi-line `data` is joined with
 * newlines. Node and workerd alike (fetch streams only).
 */

/** The events' data, and whether the server ended the stream itself. */
export interface SseRead {
  data: string[];
  closed: boolean;
}

/** The `data` of one event block, or null when it has none. */
function dataOf(block: string): string | null {
  const lines = block
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).replace(/^ /, ""));
  return lines.length > 0 ? lines.join("\n") : null;
}

/** Reads `response`'s events. */
export async function readSse(response: Response, timeoutMs: number): Promise<SseRead> {
  const data: string[] = [];
  if (!response.body) return { data, closed: true };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), expired]);
      if (chunk === null) {
        await reader.cancel().catch(() => undefined);
        return { data, closed: false };
      }
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      const blocks = buffer.split(/\r?\n\r?\n/);
      buffer = blocks.pop() ?? "";
      for (const block of blocks) {
        const payload = dataOf(block);
        if (payload !== null) data.push(payload);
      }
    }
    const last = dataOf(buffer);
    if (last !== null) data.push(last);
    return { data, closed: true };
  } finally {
    clearTimeout(timer);
  }
}
