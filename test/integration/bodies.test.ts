/**
 * Request bodies are limited before they are kept: a Content-Length over MAX_BODY_BYTES is refused
 * without reading a byte; a chunked body over it is drained to its end and refused (a body left
 * locked or canceled mid-write ended `wrangler dev`), on the A2A endpoints (JSON-RPC and REST, each
 * in its own error shape), the MCP and AG-UI faces, webhooks and the admin uploads.
 */
import { describe, expect, it } from "vitest";
import { callWorker, closedEnv } from "../helpers/as-user.ts";

const LIMIT = 1024;
const CHUNK = 512;

/** A body of `chunks` chunks that counts what was pulled from it. */
function countedBody(chunks: number) {
  const seen = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= chunks) return controller.close();
      seen.pulled++;
      controller.enqueue(new TextEncoder().encode("x".repeat(CHUNK)));
    },
  });
  return { stream, seen };
}

const env = {
  ...closedEnv,
  ALLOW_ANONYMOUS: "true",
  ADMIN_API_KEY: "bodies-admin",
  MAX_BODY_BYTES: String(LIMIT),
  WEBHOOKS: JSON.stringify({
    hook: { agent: "assistant", owner: "anonymous", secret: "HOOK_SECRET", prompt: "x" },
  }),
  HOOK_SECRET: "s",
} as Env;

const admin = { Authorization: "Bearer bodies-admin" };
const targets: Array<[string, string, Record<string, string>]> = [
  ["POST /", "/", { "content-type": "application/json", "A2A-Version": "1.0" }],
  ["REST message:send", "/agents/writer/message:send", { "A2A-Version": "1.0" }],
  ["MCP", "/agents/writer/mcp", { "content-type": "application/json" }],
  ["AG-UI", "/agents/writer/ag-ui", { "content-type": "application/json" }],
  ["a webhook", "/webhooks/hook", {}],
  ["an identity upload", "/api/admin/agents/writer/identity", admin],
];

/** Sends a body of 100 counted chunks to `path` (PUT to the admin API, POST elsewhere). */
async function sendCounted(path: string, headers: Record<string, string>) {
  const { stream, seen } = countedBody(100);
  const method = path.startsWith("/api/") ? "PUT" : "POST";
  const init = { method, headers, body: stream, duplex: "half" } as RequestInit;
  return { response: await callWorker(path, init, env), seen };
}

describe("request bodies", () => {
  it.each(targets)(
    "%s: a Content-Length over the limit is refused before a byte is read",
    async (_, path, headers) => {
      const length = { "content-length": String(100 * CHUNK) };
      const { response, seen } = await sendCounted(path, { ...headers, ...length });
      expect(response.status).toBe(413);
      expect(seen.pulled).toBeLessThanOrEqual(1);
    },
  );

  it.each(targets)(
    "%s: a chunked body over the limit is drained to its end, then refused",
    async (_, path, headers) => {
      const { response, seen } = await sendCounted(path, headers);
      expect(response.status).toBe(413);
      expect(seen.pulled).toBe(100);
    },
  );

  it("answers each endpoint's 413 in its own shape, and serves the next request", async () => {
    const big = "x".repeat(LIMIT + 1);
    const rpc = await callWorker(
      "/",
      { method: "POST", headers: { "content-type": "application/json" }, body: big },
      env,
    );
    expect(await rpc.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
    const rest = await callWorker(
      "/agents/writer/message:send",
      { method: "POST", headers: { "A2A-Version": "1.0" }, body: big },
      env,
    );
    expect(await rest.json()).toMatchObject({
      error: { code: 413, status: "INVALID_ARGUMENT" },
    });
    expect((await callWorker("/health", {}, env)).status).toBe(200);
  });
});
