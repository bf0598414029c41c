/**
 * Small A2A v0.3 agents for the CLI's trust tests: an origin on 127.0.0.1 that records every
 * request (with its Authorization header) and answers with handlers a test swaps in (the card,
 * a key set, message/send echoing the text). Node only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Json = Record<string, unknown>;
/** Answers a request (true) or leaves it (false: 404). */
export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => boolean;

/** One origin: records every request (and its Authorization), answers with `handle`. */
export interface Origin {
  url: string;
  seen: Array<{ method: string; path: string; authorization: string | undefined }>;
  handle: Handler;
  close(): Promise<void>;
}

/** Starts an origin on a free port; it answers 404 until given a handler. */
export async function startOrigin(): Promise<Origin> {
  const origin: Origin = { url: "", seen: [], handle: () => false, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      origin.seen.push({
        method: req.method ?? "",
        path: req.url ?? "",
        authorization: req.headers.authorization,
      });
      if (!origin.handle(req, res, Buffer.concat(chunks).toString("utf8"))) {
        res.statusCode = 404;
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return origin;
}

/** A v0.3 card whose JSON-RPC interface is at `url` (its name and description as given). */
export const cardAt = (
  url: string,
  about: { name: string; description: string } = {
    name: "echo",
    description: "Echoes what it is told",
  },
): Json => ({
  ...about,
  url,
  version: "0.1.0",
  protocolVersion: "0.3.0",
  preferredTransport: "JSONRPC",
  capabilities: { streaming: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Says it back", tags: [] }],
});

/** Answers `value` as JSON. */
export const json = (res: ServerResponse, value: unknown, status = 200) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
};

/** Serves `card()` as the agent card. */
export const serveCard =
  (card: () => Json): Handler =>
  (req, res) => {
    if (req.method !== "GET" || !req.url?.startsWith("/.well-known/agent-card.json")) return false;
    json(res, card());
    return true;
  };

/** Answers v0.3 message/send with a completed task echoing the text. */
export const echo: Handler = (req, res, body) => {
  if (req.method !== "POST") return false;
  const request = JSON.parse(body) as {
    id: number;
    params: { message: { parts: Array<{ text?: string }> } };
  };
  const text = request.params.message.parts.map((p) => p.text ?? "").join("");
  json(res, {
    jsonrpc: "2.0",
    id: request.id,
    result: {
      kind: "task",
      id: "t-1",
      contextId: "c-1",
      status: { state: "completed", timestamp: new Date().toISOString() },
      artifacts: [{ artifactId: "echo", parts: [{ kind: "text", text: `echo: ${text}` }] }],
    },
  });
  return true;
};

/** The first of `handlers` that answers. */
export const either =
  (...handlers: Handler[]): Handler =>
  (req, res, body) =>
    handlers.some((h) => h(req, res, body));
