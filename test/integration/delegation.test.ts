/**
 * Delegation tokens in workerd: a trusted issuer's token makes the caller "user U via agent A
 * from issuer I" (its task's metadata records the chain, its tasks are its own), a replayed one
 * is refused naming the check, a key set that cannot be fetched is a 503 that says so (retried,
 * never an internal error), AGENT_CALL_RULES name delegated callers, and the card declares the
 * scheme with the trusted issuers. The token's claims are decoded once before they are verified.
 * The issuer's key set is served by a fake fetch.
 */
import { env } from "cloudflare:workers";
import { base64url, exportJWK, generateKeyPair } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type DelegationClaims, mintDelegationToken } from "../../src/auth/delegation-token.ts";
import { setKeySetFetch } from "../../src/auth/issuer-keys.ts";
import { loadConfig } from "../../src/config/config.ts";
import { issuerCounters } from "../../src/platform/object-names.ts";
import { acceptsDelegationFrom } from "../../src/remote/delegation.ts";
import { userObject } from "../../src/users/limits.ts";
import { userMessage } from "../helpers/a2a.ts";
import { callWorker, closedEnv, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";

const ISSUER = "https://issuer.test";
const trusting = {
  ...closedEnv,
  PUBLIC_URL: "http://harness.test",
  TRUSTED_ISSUERS: JSON.stringify({ [ISSUER]: `${ISSUER}/jwks.json` }),
} as Env;
const ruled = {
  ...trusting,
  AGENT_CALL_RULES: JSON.stringify({ [`delegated:${ISSUER} agent=assistant`]: ["researcher"] }),
} as Env;

let signer: { kid: string; alg: string; key: CryptoKey };
let jwks: { keys: unknown[] };

const claims = (over: Partial<DelegationClaims> = {}): DelegationClaims => ({
  issuer: ISSUER,
  subject: "alice",
  actor: { sub: "assistant", iss: ISSUER, act: { sub: "planner", iss: "https://first.test" } },
  audience: "http://harness.test/agents/writer/",
  correlationId: "corr-1",
  scope: "task",
  ...over,
});
const token = (over: Partial<DelegationClaims> = {}) =>
  mintDelegationToken(signer, claims(over), 5);

/** Serves the key set; `failures` first attempts fail. */
function serveKeys(failures = 0): { calls: () => number } {
  let calls = 0;
  setKeySetFetch(async (input) => {
    calls += 1;
    if (String(input) !== `${ISSUER}/jwks.json`) return new Response("no", { status: 404 });
    if (calls <= failures) throw new Error("connection reset");
    return Response.json(jwks);
  });
  return { calls: () => calls };
}

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  signer = { kid: "issuer-key", alg: "ES256", key: pair.privateKey };
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "issuer-key", alg: "ES256" }] };
});

afterEach(() => {
  vi.restoreAllMocks();
  setKeySetFetch(null);
});

type Task = { id: string; status: { state: string }; metadata?: Record<string, unknown> };

describe("delegation tokens at the edge", () => {
  it("makes the caller user alice via assistant from the issuer, chain recorded", async () => {
    serveKeys();
    const sent = await rpcAs<{ task: Task }>(
      await token(),
      "SendMessage",
      {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          parts: [{ text: "[[reply:ok]]" }],
        },
      },
      "/agents/writer/",
      trusting,
    );
    expect(sent.status).toBe(200);
    const task = sent.body.result?.task as Task;
    expect(task.metadata?.owner).toMatch(/^dlg-[0-9a-f]{32}$/);
    expect(task.metadata?.delegation).toEqual({
      issuer: ISSUER,
      user: "alice",
      agent: "assistant",
      actor: claims().actor,
      correlationId: "corr-1",
      scope: "task",
    });
    // A fresh token of the same user and agent reaches the task; another user does not.
    const again = await rpcAs<Task>(
      await token(),
      "GetTask",
      { id: task.id },
      "/agents/writer/",
      trusting,
    );
    expect(again.body.result?.id).toBe(task.id);
    const bob = await rpcAs(
      await token({ subject: "bob" }),
      "GetTask",
      { id: task.id },
      "/agents/writer/",
      trusting,
    );
    expect(JSON.stringify(bob.body.error)).toContain("not found");
  });

  it("reads the token's claims once unverified (the issuer) and once verified", async () => {
    serveKeys();
    const minted = await token();
    const claimsText = new TextDecoder().decode(base64url.decode(minted.split(".")[1] ?? ""));
    const parse = vi.spyOn(JSON, "parse");
    const listed = await rpcAs(minted, "ListTasks", {}, "/agents/writer/", trusting);
    expect(listed.status).toBe(200);
    expect(parse.mock.calls.filter(([text]) => text === claimsText)).toHaveLength(2);
  });

  it("refuses a replayed token with a 401 naming the check", async () => {
    serveKeys();
    const once = await token();
    const first = await rpcAs(once, "GetTask", { id: "none" }, "/agents/writer/", trusting);
    expect(first.status).toBe(200);
    const replay = await rpcAs(once, "GetTask", { id: "none" }, "/agents/writer/", trusting);
    expect(replay.status).toBe(401);
    expect(replay.body.error?.message).toContain("(replay)");
  });

  it("counts refused tokens against the failed-credential throttle; good and unchecked ones are not counted", async () => {
    serveKeys();
    const throttledEnv = { ...trusting, AUTH_FAILURES_PER_MINUTE: "2" } as Env;
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const call = async (bearer: string) =>
      callWorker(
        "/agents/writer/",
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "A2A-Version": "1.0",
            Authorization: `Bearer ${bearer}`,
            "CF-Connecting-IP": ip,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
        },
        throttledEnv,
      );
    const elsewhere = () => token({ audience: "http://harness.test/agents/researcher/" });
    // A key set that cannot be fetched is a 503 and no failure of the caller's.
    setKeySetFetch(async () => new Response("down", { status: 502 }));
    expect((await call(await elsewhere())).status).toBe(503);
    serveKeys();
    // A good token costs the counters nothing: any number pass.
    for (let i = 0; i < 3; i++) expect((await call(await token())).status).toBe(200);
    expect((await call(await elsewhere())).status).toBe(401);
    expect((await call(await elsewhere())).status).toBe(401);
    // The third refusal finds the IP's counter full: 429, and the IP is refused before any check.
    const third = await call(await elsewhere());
    expect(third.status).toBe(429);
    expect(third.headers.get("Retry-After")).toBeTruthy();
    expect((await call(await token())).status).toBe(429);
  });

  it("refuses a token that would live longer than an hour with a 401 naming the check", async () => {
    serveKeys();
    const lasting = (minutes: number) => mintDelegationToken(signer, claims(), minutes);
    const day = await rpcAs(
      await lasting(24 * 60),
      "GetTask",
      { id: "x" },
      "/agents/writer/",
      trusting,
    );
    expect(day.status).toBe(401);
    expect(day.body.error?.message).toContain("(expiry)");
    expect(day.body.error?.message).toContain("at most 60 minutes");
    const hour = await rpcAs(
      await lasting(60),
      "GetTask",
      { id: "x" },
      "/agents/writer/",
      trusting,
    );
    expect(hour.status).toBe(200);
  });

  it("refuses a token for another agent of this deployment (audience)", async () => {
    serveKeys();
    const response = await rpcAs(
      await token(),
      "GetTask",
      { id: "x" },
      "/agents/researcher/",
      trusting,
    );
    expect(response.status).toBe(401);
    expect(response.body.error?.message).toContain("(audience)");
  });

  it("checks the audience against the agent the router serves, not the raw path (/agents/%77riter/)", async () => {
    serveKeys();
    const root = await rpcAs(
      await token({ audience: "http://harness.test/" }),
      "GetTask",
      { id: "x" },
      "/agents/%77riter/",
      trusting,
    );
    expect(root.status).toBe(401);
    expect(root.body.error?.message).toContain("(audience)");
    const writer = await rpcAs(
      await token(),
      "GetTask",
      { id: "x" },
      "/agents/%77riter/",
      trusting,
    );
    expect(writer.status).toBe(200);
    expect(writer.body.error?.code).toBe(-32001);
  });

  it("retries a key set that failed once, and names an issuer whose keys cannot be fetched", async () => {
    const flaky = serveKeys(1);
    const ok = await rpcAs(await token(), "GetTask", { id: "x" }, "/agents/writer/", trusting);
    expect(ok.status).toBe(200);
    expect(flaky.calls()).toBe(2);
    setKeySetFetch(async () => new Response("down", { status: 502 }));
    const response = await callWorker(
      "/agents/writer/",
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "A2A-Version": "1.0",
          Authorization: `Bearer ${await token()}`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
      },
      trusting,
    );
    expect(response.status).toBe(503);
    expect(response.headers.get("A2A-Delegation-Unchecked")).toBe("key-set");
    const text = await response.text();
    expect(text).toContain(`the key set of ${ISSUER} could not be fetched`);
    expect(text).not.toContain("Internal error");
  });

  it("counts every user a trusted issuer delegates against one budget of the issuer's", async () => {
    // A public peer: each of its anonymous conversations is a user of its own here.
    const issuer = `https://peer-${crypto.randomUUID().slice(0, 8)}.test`;
    const peer = {
      ...trusting,
      TRUSTED_ISSUERS: JSON.stringify({ [issuer]: `${issuer}/jwks.json` }),
    } as Env;
    setKeySetFetch(async (input) =>
      String(input) === `${issuer}/jwks.json`
        ? Response.json(jwks)
        : new Response("no", { status: 404 }),
    );
    const send = async (conversation: string) => {
      const s = await scenario([{ text: "answered" }]);
      const bearer = await mintDelegationToken(
        signer,
        claims({
          issuer,
          subject: `conversation-${conversation}`,
          actor: { sub: "assistant", iss: issuer },
        }),
        5,
      );
      const sent = await rpcAs<{ task: Task }>(
        bearer,
        "SendMessage",
        { message: userMessage(`hi ${s.marker}`) },
        "/agents/writer/",
        peer,
      );
      return sent.body.result?.task as Task & {
        status: { message?: { parts: Array<{ text?: string }> } };
      };
    };
    expect((await send("first")).status.state).toBe("TASK_STATE_COMPLETED");
    // The issuer's callers spent its day (BUDGET_ISSUER_DAY_TOKENS): a new conversation's first
    // call is refused as well, though that conversation spent nothing yet.
    const { dayTokens } = loadConfig(env).budgets.issuer;
    await userObject(env, issuerCounters(issuer)).settle("spent-before", dayTokens);
    const fresh = await send(crypto.randomUUID());
    expect(fresh.status.state).toBe("TASK_STATE_REJECTED");
    expect(fresh.status.message?.parts[0]?.text).toContain(
      `The daily token budget of the callers delegated by ${issuer} is spent`,
    );
  });

  it("applies AGENT_CALL_RULES written for delegated callers", async () => {
    serveKeys();
    const refused = await rpcAs(await token(), "GetTask", { id: "x" }, "/agents/writer/", ruled);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain(
      `AGENT_CALL_RULES do not let user alice via assistant from ${ISSUER} call writer`,
    );
    const allowed = await rpcAs(
      await token({ audience: "http://harness.test/agents/researcher/" }),
      "GetTask",
      { id: "x" },
      "/agents/researcher/",
      ruled,
    );
    expect(allowed.status).toBe(200);
  });

  it("declares the delegation scheme and the trusted issuers on the card", async () => {
    const response = await callWorker(
      "/agents/writer/.well-known/agent-card.json",
      { headers: { "A2A-Version": "1.0" } },
      trusting,
    );
    const card = (await response.json()) as Parameters<typeof acceptsDelegationFrom>[0];
    expect(acceptsDelegationFrom(card, ISSUER)).toBe(true);
    expect(acceptsDelegationFrom(card, "https://other.test")).toBe(false);
    const closed = await callWorker("/agents/writer/.well-known/agent-card.json", {
      headers: { "A2A-Version": "1.0" },
    });
    expect(acceptsDelegationFrom((await closed.json()) as typeof card, ISSUER)).toBe(false);
    // An open deployment declares the scheme too (not required): callers still say who they are.
    const open = { ...trusting, ALLOW_ANONYMOUS: "true" } as Env;
    const openCard = await callWorker(
      "/agents/writer/.well-known/agent-card.json",
      { headers: { "A2A-Version": "1.0" } },
      open,
    );
    const body = (await openCard.json()) as typeof card & { securityRequirements?: unknown };
    expect(acceptsDelegationFrom(body, ISSUER)).toBe(true);
    expect(body.securityRequirements).toBeUndefined();
  });
});
