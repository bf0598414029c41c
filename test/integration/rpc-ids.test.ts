/**
 * JSON-RPC error answers keep the request's id wherever the edge could read it (JSON-RPC 2.0 §5):
 * an unknown agent, a bad A2A-Version, a media type that is not JSON (the body still parses), a
 * refused caller after authentication. The id is null only for a body that cannot be read as a
 * request, and before authentication (the body of an unauthenticated caller is not read).
 */
import { describe, expect, it } from "vitest";
import { idOf, requestIdOf } from "../../src/a2a/jsonrpc/rpc-id.ts";
import { fetchWorker } from "../helpers/a2a.ts";

const call = (id: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "GetTask", params: { id: "none" } });

/** Posts `body` to `path`; the status and the JSON answer. */
async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetchWorker(path, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0", ...headers },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { id: unknown; error?: { code: number } },
  };
}

describe("JSON-RPC error ids", () => {
  it("reads an id only where it is a string or an integer", () => {
    expect(requestIdOf(call("a-1"))).toBe("a-1");
    expect(requestIdOf(call(7))).toBe(7);
    for (const id of [null, 1.5, { x: 1 }, [1], true]) expect(requestIdOf(call(id))).toBeNull();
    expect(requestIdOf("{not json")).toBeNull();
    expect(idOf([{ id: 1 }])).toBeNull();
  });

  it("an unknown agent answers with the request's id", async () => {
    for (const path of ["/agents/no-such-agent/", "/agents/no-such-agent"]) {
      const { status, body } = await post(path, call("unknown-1"));
      expect(status, path).toBe(404);
      expect(body).toMatchObject({ id: "unknown-1", error: { code: -32601 } });
    }
  });

  it("a bad A2A-Version answers with the request's id", async () => {
    const { body } = await post("/agents/writer/", call(42), { "A2A-Version": "99.0" });
    expect(body).toMatchObject({ id: 42, error: { code: -32009 } });
  });

  it("a media type that is not JSON answers with the id when the body parses, else null", async () => {
    for (const type of ["text/plain", "application/octet-stream"]) {
      const readable = await post("/agents/writer/", call("typed"), { "content-type": type });
      expect(readable.status, type).toBe(415);
      expect(readable.body, type).toMatchObject({ id: "typed", error: { code: -32005 } });
    }
    const unreadable = await post("/agents/writer/", "{'id': 1}", { "content-type": "text/plain" });
    expect(unreadable.body).toMatchObject({ id: null, error: { code: -32005 } });
  });

  it("null for a body that is not JSON, and before authentication", async () => {
    expect((await post("/agents/writer/", "{not json")).body).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    const refused = await post("/agents/writer/", call("secret"), {
      Authorization: "Bearer a2a_not-a-real-token",
    });
    expect(refused.status).toBe(401);
    expect(refused.body.id).toBeNull();
  });
});
