/**
 * Agents uploaded for a test through the admin API, `/api/admin/agents/<name>/identity`: an
 * IDENTITY.md put as an admin, and removed again (a shipped agent's own file is then served).
 */
import { env } from "cloudflare:workers";
import { callWorker } from "./as-user.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Puts `identity` as agent `name`'s IDENTITY.md with an admin's `token` (the admin key's by default). */
export function putIdentity(
  name: string,
  identity: string,
  token = env.ADMIN_API_KEY ?? "",
): Promise<Response> {
  return callWorker(`/api/admin/agents/${name}/identity`, {
    method: "PUT",
    headers: { ...bearer(token), "content-type": "text/markdown" },
    body: identity,
  });
}

/** Removes the uploaded IDENTITY.md of agent `name` with an admin's `token`. */
export function deleteIdentity(name: string, token = env.ADMIN_API_KEY ?? ""): Promise<Response> {
  return callWorker(`/api/admin/agents/${name}/identity`, {
    method: "DELETE",
    headers: bearer(token),
  });
}
