/**
 * Identity across hops end to end: two `npm run dev` instances (A and B, each its own state,
 * PUBLIC_URL and card-signing key) that trust each other's delegation tokens. Alice's task on A
 * delegates to B with a token and B records "user alice via assistant from A"; a chain of two
 * hops (A -> B -> A) carries the nested actor; tokens expired, for another audience, from an
 * untrusted issuer or replayed are refused with a 401 naming the check; an agent whose `access`
 * excludes the issuer answers 403; a registry entry with `requireSignature` refuses an unsigned
 * card and one signed by the wrong key, and the parent's answer says why; a remote child in
 * auth-required pauses its parent in auth-required and resumes after the user's answer.
 *
 * Robust under load: both instances are warmed up (health, cards, key sets) before the first
 * test, sends return at once and the test polls, and every wait is generous.
 */
import type { Client } from "@a2a-js/sdk/client";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDelegationToken } from "../../src/auth/delegation-token.ts";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { startFakeModel } from "../fake-model/server.ts";
import { taskInput, toolTurn as tool } from "../helpers/turns.ts";
import { type AuthAgent, SIGN_IN, startAuthAgent } from "./auth-agent.ts";
import { answerOf, asTask, bearerClients, textRequest, waitForState } from "./client.ts";
import { type DevServer, freePort, freshStateDir, startDevServer } from "./dev-server.ts";
import { addScenario, lastToolResults } from "./scenarios.ts";
import { addUser } from "./users.ts";

const ADMIN = "e2e-admin";
const LONG = 150_000;

let fake: Awaited<ReturnType<typeof startFakeModel>>;
let a: DevServer;
let b: DevServer;
let authAgent: AuthAgent;
let aKey: { jwk: JWK; key: CryptoKey };
let strangerKey: { jwk: JWK; key: CryptoKey };
let aliceToken: string;

async function signingKey(kid: string) {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: "ES256" };
  return { jwk, key: privateKey as CryptoKey };
}

const scenario = (turns: Turn[]) => addScenario(fake.store, turns);
const toolResults = (scenarioId: string) => lastToolResults(fake.store, scenarioId);

/** Alice's client of the assistant on A. */
const alice = (): Promise<Client> =>
  bearerClients(aliceToken).createFromUrl(`${a.url}/agents/assistant/`);

/** Starts a task for alice on A and polls it until it settles in `state`. */
async function aliceTask(text: string, state = "TASK_STATE_COMPLETED") {
  const client = await alice();
  const sent = asTask(await client.sendMessage(textRequest(text, { returnImmediately: true })));
  return { client, task: await waitForState(client, sent.id, state, LONG) };
}

/** Waits until `url` answers 200 (a cold instance's first requests can be slow). */
async function warm(url: string, check: (body: unknown) => boolean = () => true): Promise<void> {
  const deadline = Date.now() + LONG;
  for (;;) {
    const response = await fetch(url, {
      headers: { "A2A-Version": "1.0" },
      signal: AbortSignal.timeout(30_000),
    }).catch(() => null);
    if (response?.ok && check(await response.json().catch(() => null))) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A task's event log on `server`, as an admin sees it (its first event holds the metadata). */
async function taskEvents(server: DevServer, taskId: string): Promise<string> {
  const response = await fetch(`${server.url}/api/tasks/${taskId}/events`, {
    headers: { Authorization: `Bearer ${ADMIN}` },
  });
  expect(response.status).toBe(200);
  return response.text();
}

/** A JSON-RPC GetTask on B's writer with `token` as the bearer. */
function getTaskWith(token: string, agent = "writer") {
  return fetch(`${b.url}/agents/${agent}/`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      "A2A-Version": "1.0",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "no-such" } }),
  });
}

/** A token as A would mint it, for B's `agent` unless `audience` says otherwise. */
function tokenFromA(
  options: {
    agent?: string;
    audience?: string;
    now?: number;
    issuer?: string;
    key?: CryptoKey;
  } = {},
) {
  return mintDelegationToken(
    { kid: "a-key", alg: "ES256", key: options.key ?? aKey.key },
    {
      issuer: options.issuer ?? a.url,
      subject: "alice",
      actor: { sub: "assistant", iss: a.url },
      audience: options.audience ?? `${b.url}/agents/${options.agent ?? "writer"}/`,
      correlationId: "e2e-correlation",
      scope: "task",
    },
    5,
    options.now,
  );
}

beforeAll(async () => {
  fake = await startFakeModel({ port: 0 });
  const [pa, pb] = [await freePort(), await freePort()];
  const [urlA, urlB] = [`http://127.0.0.1:${pa}`, `http://127.0.0.1:${pb}`];
  aKey = await signingKey("a-key");
  const bKey = await signingKey("b-key");
  strangerKey = await signingKey("stranger-key");
  authAgent = await startAuthAgent();
  const common = {
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "e2e-key",
    MODEL_IDLE_TIMEOUT_MS: "10000",
    MODEL_RETRY_BASE_MS: "20",
    AUTH_REQUIRED: "true",
    ADMIN_API_KEY: ADMIN,
    WEB_FETCH_ALLOW_PRIVATE: "true",
    TRUSTED_ISSUERS: JSON.stringify({
      [urlA]: `${urlA}/.well-known/jwks.json`,
      [urlB]: `${urlB}/.well-known/jwks.json`,
    }),
  };
  a = await startDevServer({
    port: pa,
    persistDir: freshStateDir(),
    vars: {
      ...common,
      PUBLIC_URL: urlA,
      AGENT_CARD_SIGNING_KEY: JSON.stringify(aKey.jwk),
      A2A_AGENTS: JSON.stringify({
        "b-writer": { url: `${urlB}/agents/writer/` },
        "b-assistant": { url: `${urlB}/agents/assistant/` },
        researcher: { url: authAgent.url },
        "b-pinned-wrong": {
          url: `${urlB}/agents/writer/`,
          requireSignature: true,
          cardKeysUrl: `${urlA}/.well-known/jwks.json`,
        },
        "b-signed": { url: `${urlB}/agents/writer/`, requireSignature: true },
        unsigned: { url: authAgent.url, requireSignature: true },
      }),
      DISTRIBUTED_AGENTS: "researcher",
    },
  });
  b = await startDevServer({
    port: pb,
    persistDir: freshStateDir(),
    vars: {
      ...common,
      PUBLIC_URL: urlB,
      AGENT_CARD_SIGNING_KEY: JSON.stringify(bKey.jwk),
      A2A_AGENTS: JSON.stringify({ "a-writer": { url: `${urlA}/agents/writer/` } }),
    },
  });
  aliceToken = (await addUser(a, "alice", ["--name", "Alice"])) as string;
  // Warm both instances: health, the cards the tests call and the key sets tokens are checked with.
  for (const server of [a, b]) {
    await warm(`${server.url}/health`);
    await warm(
      `${server.url}/.well-known/jwks.json`,
      (body) =>
        Array.isArray((body as { keys?: unknown[] })?.keys) &&
        ((body as { keys: unknown[] }).keys.length ?? 0) > 0,
    );
    for (const agent of ["assistant", "writer", "researcher"])
      await warm(`${server.url}/agents/${agent}/.well-known/agent-card.json`);
  }
});

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await fake?.close();
  await authAgent?.close();
});

describe("identity across hops", () => {
  it("delegates with tokens: B sees user alice via assistant from A", async () => {
    const child = scenario([{ text: "Written by B." }]);
    const parent = scenario([
      tool("a2a_call", { agent: "b-writer", message: `Write it. ${child.marker}` }),
      { text: "Done." },
    ]);
    const { task } = await aliceTask(`delegate ${parent.marker}`);
    expect(answerOf(task)).toContain("Done.");
    const [result = ""] = toolResults(parent.id);
    expect(result).toContain("Written by B.");
    const childId = /task ([0-9a-f-]{8,})/.exec(result)?.[1] as string;
    const events = JSON.parse(await taskEvents(b, childId)) as {
      events: Array<{ event: unknown }>;
    };
    const first = JSON.stringify(events.events[0]?.event);
    expect(first).toContain(`"issuer":"${a.url}"`);
    expect(first).toContain(`"user":"alice"`);
    expect(first).toContain(`"agent":"assistant"`);
  });

  it("carries the nested actor on a chain of two hops", async () => {
    const last = scenario([{ text: "Second hop done." }]);
    const middle = scenario([
      tool("a2a_call", { agent: "a-writer", message: `Go on. ${last.marker}` }),
      { text: "First hop done." },
    ]);
    const parent = scenario([
      tool("a2a_call", { agent: "b-assistant", message: `Start. ${middle.marker}` }),
      { text: "All done." },
    ]);
    await aliceTask(`chain ${parent.marker}`);
    const [hop] = toolResults(middle.id);
    expect(hop).toContain("Second hop done.");
    const lastId = /task ([0-9a-f-]{8,})/.exec(hop ?? "")?.[1] as string;
    const first = JSON.stringify(
      (JSON.parse(await taskEvents(a, lastId)) as { events: Array<{ event: unknown }> }).events[0]
        ?.event,
    );
    // On A: user alice via B's assistant from B, which acted for A's assistant.
    expect(first).toContain(`"issuer":"${b.url}"`);
    expect(first).toContain(`"user":"alice"`);
    expect(first).toMatch(/"act":\{"sub":"assistant","iss":"http:\/\/127\.0\.0\.1:\d+"\}/);
    expect(first).toContain(`"iss":"${a.url}"`);
  });

  it("refuses expired, wrong-audience, untrusted and replayed tokens, naming the check", async () => {
    const expired = await tokenFromA({ now: Date.now() - 20 * 60_000 });
    const elsewhere = await tokenFromA({ audience: `${b.url}/agents/researcher/` });
    const stranger = await tokenFromA({ issuer: "https://stranger.example", key: strangerKey.key });
    const forged = await tokenFromA({ key: strangerKey.key });
    for (const [token, check] of [
      [expired, "expiry"],
      [elsewhere, "audience"],
      [stranger, "issuer"],
      [forged, "signature"],
    ] as const) {
      const response = await getTaskWith(token);
      expect(response.status).toBe(401);
      const body = await response.text();
      expect(body).toContain(`(${check})`);
      expect(body).not.toContain(token);
    }
    const once = await tokenFromA();
    const first = await getTaskWith(once);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("not found");
    const again = await getTaskWith(once);
    expect(again.status).toBe(401);
    expect(await again.text()).toContain("(replay)");
  });

  it("answers 403 where the agent's access excludes the issuer", async () => {
    const identity = (
      await (
        await fetch(`${b.url}/api/admin/agents/deep-thinker/identity`, {
          headers: { Authorization: `Bearer ${ADMIN}` },
        })
      ).text()
    ).replace(/^---\n/, '---\naccess:\n  users: ["delegated:https://other.example"]\n');
    const put = await fetch(`${b.url}/api/admin/agents/deep-thinker/identity`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "text/markdown" },
      body: identity,
    });
    expect(put.status).toBeLessThan(300);
    const response = await getTaskWith(await tokenFromA({ agent: "deep-thinker" }), "deep-thinker");
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(`user alice via assistant from ${a.url}`);
  });

  it("refuses agents whose card is unsigned or signed by the wrong key, saying why", async () => {
    const parent = scenario([
      tool("a2a_call", { agent: "unsigned", message: "hello" }),
      tool("a2a_call", { agent: "b-pinned-wrong", message: "hello" }),
      tool("a2a_discover", { agent: "b-signed" }),
      { text: "Checked." },
    ]);
    await aliceTask(`verify ${parent.marker}`);
    const [unsigned, wrong, signed] = toolResults(parent.id);
    expect(unsigned).toContain("is not signed: refused");
    expect(wrong).toContain("signature does not verify");
    expect(wrong).not.toContain("Illegal invocation");
    expect(signed).not.toContain("refused");
    expect(signed).toContain("writer");
  });

  it("passes a remote child's auth-required up to the user and resumes after the answer", async () => {
    const parent = scenario([
      tool("task", taskInput("researcher", "needs a sign-in", "Look it up.")),
      { text: "Resumed and done." },
    ]);
    const { client, task } = await aliceTask(`auth ${parent.marker}`, "TASK_STATE_AUTH_REQUIRED");
    expect(JSON.stringify(task.status?.message)).toContain(SIGN_IN);
    await client.sendMessage(
      textRequest(
        "I signed in.",
        { returnImmediately: true },
        { taskId: task.id, contextId: task.contextId },
      ),
    );
    const done = await waitForState(client, task.id, "TASK_STATE_COMPLETED", LONG);
    expect(answerOf(done)).toContain("Resumed and done.");
    expect(authAgent.received.at(-1)).toContain("I signed in.");
    expect(toolResults(parent.id).join("\n")).toContain("Signed in, thanks.");
  });
});
