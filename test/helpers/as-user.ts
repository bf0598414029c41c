/**
 * Calling the Worker as a given user with authentication on: the Worker's fetch with an env that
 * closes anonymous access (the task objects keep the test env; only the edge decides who calls).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createUser } from "../../src/auth/users-store.ts";
import worker from "../../src/worker.ts";
import type { RpcResponse } from "./a2a.ts";

/** The test env with anonymous access off (one object, so per-env caches behave as deployed). */
export const closedEnv = { ...env, ALLOW_ANONYMOUS: "false" } as Env;

/** Calls the Worker with `bindings` (default: closed). */
export async function callWorker(
  path: string,
  init: RequestInit = {},
  bindings: Env = closedEnv,
): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(`http://harness.test${path}`, init),
    bindings,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

/** A new user (unique id) and its token. */
export async function newUser(
  role: "user" | "admin" = "user",
  agents: string[] | null = null,
): Promise<{ id: string; token: string }> {
  const id = `u-${crypto.randomUUID().slice(0, 8)}`;
  const { token } = await createUser(env.DB, { id, name: id, role, agents });
  return { id, token };
}

/** Posts a JSON-RPC v1.0 call with a bearer token (none when null) and `headers`; the response. */
export function postAs(
  token: string | null,
  method: string,
  params: unknown,
  path = "/",
  bindings: Env = closedEnv,
  headers: Record<string, string> = {},
): Promise<Response> {
  return callWorker(
    path,
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "A2A-Version": "1.0",
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    },
    bindings,
  );
}

/** A JSON-RPC v1.0 call with a bearer token. */
export async function rpcAs<T = Record<string, unknown>>(
  token: string | null,
  method: string,
  params: unknown,
  path = "/",
  bindings: Env = closedEnv,
): Promise<{ status: number; body: RpcResponse<T> }> {
  const response = await postAs(token, method, params, path, bindings);
  return { status: response.status, body: (await response.json()) as RpcResponse<T> };
}
