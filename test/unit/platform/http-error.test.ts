/**
 * The one error path: an HttpError thrown by a route or middleware is answered by httpErrorResponse in
 * the shape of the endpoint (JSON-RPC for a POST to an agent endpoint, else the A2A REST error),
 * with its status, headers and optional `details`; anything else is a bare 500.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HttpError, httpErrorResponse, invalidInput } from "../../../src/platform/http-error.ts";

const app = new Hono().onError((error, c) => httpErrorResponse(c, error));
app.all("/agents/:name/", () => {
  throw new HttpError(429, "slow down", { rpcCode: -32001, headers: { "Retry-After": "7" } });
});
app.post("/", () => {
  throw new HttpError(401, "who are you");
});
app.get("/rest", () => {
  throw new HttpError(413, "too big", { details: true, rpcCode: -32600 });
});
app.get("/zod", () => {
  throw invalidInput(z.object({ n: z.number() }).safeParse({ n: "x" }).error as z.ZodError);
});
app.get("/hono", () => {
  throw new HTTPException(409, { message: "taken" });
});
app.get("/bug", () => {
  throw new Error("secret detail");
});

describe("httpErrorResponse", () => {
  it("answers a POST to a JSON-RPC endpoint as a JSON-RPC error with the HTTP status", async () => {
    const agent = await app.request("/agents/x/", { method: "POST" });
    expect(agent.status).toBe(429);
    expect(agent.headers.get("Retry-After")).toBe("7");
    expect(await agent.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32001, message: "slow down" },
    });
    const root = await app.request("/", { method: "POST" });
    expect(root.status).toBe(401);
    expect(await root.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: "who are you" },
    });
  });

  it("answers anything else as an A2A REST error, with details when asked", async () => {
    const agentGet = await app.request("/agents/x/");
    expect(agentGet.status).toBe(429);
    expect(await agentGet.json()).toEqual({
      error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "slow down" },
    });
    const rest = await app.request("/rest");
    expect(rest.status).toBe(413);
    expect(await rest.json()).toEqual({
      error: { code: 413, status: "INVALID_ARGUMENT", message: "too big", details: [] },
    });
    expect(await (await app.request("/zod")).json()).toEqual({
      error: {
        code: 400,
        status: "INVALID_ARGUMENT",
        message: "n: Invalid input: expected number, received string",
      },
    });
    const hono = await app.request("/hono");
    expect(hono.status).toBe(409);
    expect(await hono.json()).toEqual({
      error: { code: 409, status: "ALREADY_EXISTS", message: "taken" },
    });
  });

  it("says nothing of an unexpected error but that it happened", async () => {
    const bug = await app.request("/bug");
    expect(bug.status).toBe(500);
    expect(await bug.json()).toEqual({
      error: { code: 500, status: "INTERNAL", message: "Internal error" },
    });
  });
});
