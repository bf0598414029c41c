/**
 * The ACTS part of `npm run tck`: the dev server it runs against and the callers it runs as. The
 * server is closed, as a deployment is (AUTH_REQUIRED, an admin key of the run's own), so the
 * extended card answers 401 with `WWW-Authenticate` to a caller without credentials (ACTS
 * SEC-EXTCARD-*), while the TCK's open server gives such a caller the public card (its CARD-EXT
 * checks send no credentials): docs/conformance.md says why. The callers, made through the admin
 * API: a user of the conformance agent (the runner's token), a user of another agent only (ACTS's
 * `insufficientAuthToken`: 403), and a task of a third user (`otherUserTaskId`: not found to the
 * runner). Node only.
 */
import { randomUUID } from "node:crypto";

/** The agent ACTS runs against. */
export const ACTS_AGENT = "conformance";

/** The ACTS server's vars (the signing key is added by the caller). */
export const actsServerVars = (adminKey: string): string[] => [
  "CONFORMANCE_AGENT:true",
  "AUTH_REQUIRED:true",
  `ADMIN_API_KEY:${adminKey}`,
  // The runner's webhook receiver is on 127.0.0.1.
  "WEB_FETCH_ALLOW_PRIVATE:true",
  // A run sends a few hundred messages in seconds and holds streams open at once.
  "RATE_MESSAGES_PER_MINUTE:0",
  "AUTH_FAILURES_PER_MINUTE:0",
  "MAX_CONCURRENT_STREAMS:0",
];

/** The runner's token and the variables ACTS's authorization tests name. */
export interface ActsCallers {
  token: string;
  variables: Record<string, string>;
}

async function makeUser(base: string, adminKey: string, agents: string[]): Promise<string> {
  const response = await fetch(`${base}/api/admin/users`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ id: `acts-${randomUUID().slice(0, 8)}`, role: "user", agents }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token)
    throw new Error(`admin API: HTTP ${response.status} making a user`);
  return body.token;
}

/** A task of the user `token`, on the ACTS agent. */
async function taskOf(base: string, token: string): Promise<string> {
  const response = await fetch(`${base}/agents/${ACTS_AGENT}/`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "A2A-Version": "1.0",
      "content-type": "application/json",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          role: "ROLE_USER",
          messageId: randomUUID(),
          parts: [{ text: "tck-complete-task" }],
        },
      },
    }),
  });
  const body = (await response.json()) as { result?: { task?: { id?: string } } };
  const id = body.result?.task?.id;
  if (!id) throw new Error(`could not make another user's task: ${JSON.stringify(body)}`);
  return id;
}

/** Another agent of the server (a user of only that one may not use the ACTS agent). */
async function anotherAgent(base: string, adminKey: string): Promise<string> {
  const response = await fetch(`${base}/agents`, {
    headers: { Authorization: `Bearer ${adminKey}` },
  });
  const { agents = [] } = (await response.json()) as { agents?: Array<{ name: string }> };
  const other = agents.find((a) => a.name !== ACTS_AGENT);
  if (!other) throw new Error("the server has no agent besides the conformance agent");
  return other.name;
}

/** Makes the callers on the ACTS server at `base`. */
export async function actsCallers(base: string, adminKey: string): Promise<ActsCallers> {
  const token = await makeUser(base, adminKey, [ACTS_AGENT]);
  const outsider = await makeUser(base, adminKey, [await anotherAgent(base, adminKey)]);
  const other = await makeUser(base, adminKey, [ACTS_AGENT]);
  return {
    token,
    variables: { insufficientAuthToken: outsider, otherUserTaskId: await taskOf(base, other) },
  };
}
