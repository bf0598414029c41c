/**
 * Node-only HTTP wrapper around the scripted Messages API (src/model/scripted): converts
 * node:http requests to Web Requests (aborted when the client disconnects), streams the
 * handler's Response body chunk by chunk without buffering, binds 127.0.0.1 by default,
 * and `close()` destroys open sockets so it never hangs. A scenario turn's `recorded: "<name>"`
 * replays `test/fake-model/recorded/<name>.sse` byte for byte (read when asked for).
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import {
  createScriptedMessagesApi,
  type FetchHandler,
  type RecordingSource,
  ScenarioStore,
} from "../../src/model/scripted/messages-api.ts";

/** Where recorded streams live: `<name>.sse`, in the exact SSE format the API sends. */
export const RECORDINGS_DIR = join(import.meta.dirname, "recorded");

/** Reads `<dir>/<name>.sse` (the name is already checked to be a plain file name). */
export function recordingsIn(dir: string): RecordingSource {
  return (name) => {
    try {
      return readFileSync(join(dir, `${name}.sse`), "utf8");
    } catch {
      return undefined;
    }
  };
}

/** A running scripted Messages API server. */
export interface FakeModelServer {
  port: number;
  /** Base URL, e.g. `http://127.0.0.1:12345` (use as the SDK's `baseURL`). */
  url: string;
  /** The server's state: register scenarios and read the request log in-process. */
  store: ScenarioStore;
  /** Stops listening and destroys open connections. */
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function toWebRequest(req: IncomingMessage, body: Buffer, base: string, signal: AbortSignal) {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? "";
    if (name.startsWith(":")) continue;
    headers.append(name, req.rawHeaders[i + 1] ?? "");
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(new URL(req.url ?? "/", base), {
    method,
    headers,
    body: hasBody ? new Uint8Array(body) : null,
    signal,
  });
}

async function serve(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  base: string,
): Promise<void> {
  const disconnect = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) disconnect.abort();
  });
  const body = await readBody(req);
  const response = await handler(toWebRequest(req, body, base, disconnect.signal));
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  disconnect.signal.addEventListener("abort", () => {
    reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || disconnect.signal.aborted) break;
      // Wait for the socket when it is full; each chunk is handed to the kernel at once.
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
    }
  } catch {
    // The body failed (a scripted dropped connection): the socket drops, the response unended.
    res.destroy();
    return;
  }
  if (!res.writableEnded) res.end();
}

/** Starts the scripted Messages API on `host` (default 127.0.0.1) and `port` (default 0). */
export async function startFakeModel(
  opts: { port?: number; host?: string } = {},
): Promise<FakeModelServer> {
  const host = opts.host ?? "127.0.0.1";
  const store = new ScenarioStore();
  const handler = createScriptedMessagesApi({ store, recordings: recordingsIn(RECORDINGS_DIR) });
  const sockets = new Set<Socket>();
  let base = "http://127.0.0.1";
  const server = createServer((req, res) => {
    serve(handler, req, res, base).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        const message = error instanceof Error ? error.message : String(error);
        res.end(JSON.stringify({ type: "error", error: { type: "api_error", message } }));
      } else {
        res.destroy();
      }
    });
  });
  server.on("connection", (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  base = url;
  return {
    port,
    url,
    store,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      }),
  };
}
