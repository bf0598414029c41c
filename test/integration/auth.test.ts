/**
 * Authentication and access with anonymous access off: a request without a token is asked for
 * one, and every refused token gets the same 401 (not accepted: no hint of which part was wrong),
 * cards stay public and advertise the scheme, user tokens and OIDC JWTs (verified against a local
 * JWKS) work, revocation takes effect once a cached lookup is 5 seconds old and ends open streams, agent
 * access lists answer 403, admin routes are for admins.
 */
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it, vi } from "vitest";
import { REVOKED_REASON, stopTasksOf } from "../../src/api/stop-tasks.ts";
import { delegatedOwner } from "../../src/auth/delegated.ts";
import { AUTH_CACHE_MS } from "../../src/auth/middleware.ts";
import { mayUseAgent } from "../../src/auth/principal.ts";
import { tokenHash } from "../../src/auth/tokens.ts";
import { revokeTokens } from "../../src/auth/users-store.ts";
import { stubByName } from "../../src/platform/object-stub.ts";
import { errorBody, type RpcResponse, userMessage } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { sseEvents } from "../helpers/sse.ts";
import { toolTurn } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";

type Task = { id: string; status: { state: string }; metadata?: Record<string, unknown> };

const NO_CREDENTIALS = "Unauthorized: send Authorization: Bearer <token>";
const REFUSED = "Unauthorized: the token was not accepted (unknown, revoked, expired or mistyped)";
const unauthorizedRpc = (message: string) => ({
  jsonrpc: "2.0",
  id: null,
  error: { code: -32000, message },
});

describe("authentication", () => {
  it("asks for a token without one; refuses any bad token with one 401 that says it was not accepted", async () => {
    const { id, token } = await newUser();
    const revoked = await newUser();
    await revokeTokens(env.DB, revoked.id);
    // No usable credentials: what to send.
    const missing: Record<string, string>[] = [
      {},
      { Authorization: "" },
      { Authorization: "Bearer" },
      { Authorization: `Basic ${btoa(`${id}:${token}`)}` },
      { Authorization: `bearer ${token} extra` },
    ];
    // A token sent and refused: the same words whatever was wrong (no hint which).
    const refused: Record<string, string>[] = [
      { Authorization: `Bearer ${token}x` },
      { Authorization: "Bearer a2a_not-a-real-token" },
      { Authorization: `Bearer ${revoked.token}` },
      { Authorization: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0." },
      { Authorization: "Bearer not-even-a-token" },
    ];
    const attempts: Array<[Record<string, string>, string]> = [
      ...missing.map((h): [Record<string, string>, string] => [h, NO_CREDENTIALS]),
      ...refused.map((h): [Record<string, string>, string] => [h, REFUSED]),
    ];
    for (const [headers, message] of attempts) {
      const response = await callWorker("/", {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
      });
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="a2a"');
      expect(await response.json(), JSON.stringify(headers)).toEqual(unauthorizedRpc(message));
    }
    const rest = await callWorker("/tasks/x", { headers: { "A2A-Version": "1.0" } });
    expect(rest.status).toBe(401);
    expect(await rest.json()).toEqual(errorBody(401, "UNAUTHENTICATED", NO_CREDENTIALS));
    const wrong = await callWorker("/tasks/x", {
      headers: { "A2A-Version": "1.0", Authorization: "Bearer a2a_mistyped" },
    });
    expect(await wrong.json()).toEqual(errorBody(401, "UNAUTHENTICATED", REFUSED));
  });

  it("checks credentials sent in open mode: a non-Bearer Authorization is a 401, not anonymous", async () => {
    const open = { ...env, ALLOW_ANONYMOUS: "true" } as Env;
    const { token } = await newUser();
    const call = (headers: Record<string, string>) =>
      callWorker(
        "/",
        {
          method: "POST",
          headers: { "content-type": "application/json", "A2A-Version": "1.0", ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
        },
        open,
      );
    for (const authorization of [
      `Basic ${btoa("someone:secret")}`,
      "Token x",
      "a2a_bare-string",
      "Bearer",
      `Bearer ${token} extra`,
      "Bearer a2a_not-a-real-token",
    ]) {
      const response = await call({ Authorization: authorization });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="a2a"');
      expect(await response.json()).toEqual(
        unauthorizedRpc(/^Bearer a2a_\S+$/.test(authorization) ? REFUSED : NO_CREDENTIALS),
      );
    }
    const rest = await callWorker(
      "/tasks/x",
      { headers: { "A2A-Version": "1.0", Authorization: "Basic c2VrcmV0" } },
      open,
    );
    expect(rest.status).toBe(401);
    expect(await rest.json()).toEqual(errorBody(401, "UNAUTHENTICATED", NO_CREDENTIALS));
    // No credentials (or an empty header) is anonymous; a good token is its user.
    expect((await call({})).status).toBe(200);
    expect((await call({ Authorization: "" })).status).toBe(200);
    expect((await call({ Authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("keeps cards public and advertises the bearer scheme", async () => {
    const response = await callWorker("/.well-known/agent-card.json", {
      headers: { "A2A-Version": "1.0" },
    });
    expect(response.status).toBe(200);
    const card = (await response.json()) as Record<string, unknown>;
    expect(card.securitySchemes).toMatchObject({ bearer: { httpAuthSecurityScheme: {} } });
    expect(card.capabilities).toMatchObject({ extendedAgentCard: true });
    const legacy = (await (await callWorker("/.well-known/agent-card.json")).json()) as Record<
      string,
      unknown
    >;
    expect(legacy).toMatchObject({
      security: [{ bearer: [] }],
      supportsAuthenticatedExtendedCard: true,
    });
  });

  it("serves a user's token; the task belongs to that user", async () => {
    const { id, token } = await newUser();
    const s = await scenario([{ text: "hello user" }]);
    const sent = await rpcAs<{ task: Task }>(token, "SendMessage", {
      message: userMessage(`hi ${s.marker}`),
    });
    expect(sent.status).toBe(200);
    expect(sent.body.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(sent.body.result?.task.metadata?.owner).toBe(id);
    const card = await rpcAs(token, "GetExtendedAgentCard", {});
    expect(card.body.result).toMatchObject({ name: "assistant" });
  });

  it("stops accepting a revoked token once its cached lookup is AUTH_CACHE_MS old", async () => {
    const { id, token } = await newUser();
    // The clock is the test's: the bound is the cache's age, not how fast the machine answers.
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    try {
      expect((await rpcAs(token, "ListTasks", {})).status).toBe(200); // looked up and cached
      await revokeTokens(env.DB, id);
      clock.mockReturnValue(now + AUTH_CACHE_MS - 1);
      expect((await rpcAs(token, "ListTasks", {})).status).toBe(200); // the cached lookup
      clock.mockReturnValue(now + AUTH_CACHE_MS);
      expect((await rpcAs(token, "ListTasks", {})).status).toBe(401);
    } finally {
      clock.mockRestore();
    }
  });

  it("ends an open stream whose token is revoked, while its task still works", async () => {
    const { id, token } = await newUser();
    // 400 deltas 400 ms apart: the task streams for minutes, so only the revocation can end the
    // stream (its re-check every STREAM_AUTH_RECHECK_MS over a lookup cached AUTH_CACHE_MS: both
    // bounds are tested without a clock, in test/unit/a2a/credential-watch.test.ts and above).
    const s = await scenario([{ text: "x".repeat(400), chunkSize: 1, delayMs: 400 }]);
    const response = await callWorker("/", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "A2A-Version": "1.0",
        Authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "SendStreamingMessage",
        params: { message: userMessage(`stream ${s.marker}`) },
      }),
    });
    expect(response.status).toBe(200);
    const events: RpcResponse<{ task?: Task; statusUpdate?: { status: { state: string } } }>[] = [];
    for await (const event of sseEvents(response)) {
      events.push(JSON.parse(event.data) as (typeof events)[number]);
      if (events.length === 1) await revokeTokens(env.DB, id);
    }
    expect(events.at(-1)).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32000, message: "Unauthorized: the credentials were revoked" },
    });
    const taskId = events[0]?.result?.task?.id ?? "";
    const states = events.flatMap((e) => e.result?.statusUpdate?.status.state ?? []);
    expect(states).not.toContain("TASK_STATE_COMPLETED");
    expect(await stubByName(env.TASKS, taskId).get({ owner: id })).toMatchObject({
      ok: true,
      value: { status: { state: "TASK_STATE_WORKING" } },
    });
    await stopTasksOf(env, id);
  }, 60_000);

  it("accepts OIDC JWTs verified against the issuer's JWKS, mapped to a user by subject", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    const oidcEnv = {
      ...closedEnv,
      OIDC_ISSUER: "https://id.example.test",
      OIDC_AUDIENCE: "a2a-harness",
      OIDC_JWKS: JSON.stringify({ keys: [jwk] }),
    } as Env;
    const sign = (claims: Record<string, unknown>, key = privateKey, audience = "a2a-harness") =>
      new SignJWT({ email: "oidc@example.test", ...claims })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer("https://id.example.test")
        .setAudience(audience)
        .setSubject(typeof claims.sub === "string" ? claims.sub : "subject-1")
        .setExpirationTime("5m")
        .sign(key);
    const call = async (jwt: string, header = "Authorization") => {
      const response = await callWorker(
        "/",
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "A2A-Version": "1.0",
            [header]: header === "Authorization" ? `Bearer ${jwt}` : jwt,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
        },
        oidcEnv,
      );
      return response.status;
    };
    expect(await call(await sign({}))).toBe(200);
    // Cloudflare Access sends its JWT in its own header.
    expect(await call(await sign({}), "Cf-Access-Jwt-Assertion")).toBe(200);
    const user = await env.DB.prepare("SELECT id, name, role FROM users WHERE subject = ?")
      .bind("https://id.example.test#subject-1")
      .first<{ id: string; name: string; role: string }>();
    expect(user).toMatchObject({ name: "oidc@example.test", role: "user" });

    const other = await generateKeyPair("RS256");
    expect(await call(await sign({}, other.privateKey))).toBe(401);
    expect(await call(await sign({}, privateKey, "someone-else"))).toBe(401);
    expect(
      await call(
        await new SignJWT({})
          .setProtectedHeader({ alg: "RS256", kid: "k1" })
          .setIssuer("https://id.example.test")
          .setAudience("a2a-harness")
          .setSubject("subject-1")
          .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
          .sign(privateKey),
      ),
    ).toBe(401);

    // A user made under the id a subject is given on first sight (before such ids were reserved)
    // is never that subject's account: the subject is refused, not let into that user's data.
    const taken = `oidc-${(await tokenHash("https://id.example.test#subject-2")).slice(0, 24)}`;
    await env.DB.prepare("INSERT INTO users (id, name, role, created_at) VALUES (?, ?, 'user', ?)")
      .bind(taken, "made by an admin", new Date().toISOString())
      .run();
    expect(await call(await sign({ sub: "subject-2" }))).toBe(401);
  });
});

describe("access", () => {
  it("answers 403 for an agent outside the user's list", async () => {
    const { token } = await newUser("user", ["writer"]);
    const refused = await rpcAs(token, "ListTasks", {}, "/agents/researcher/");
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toBe("you may not use the agent researcher");
    expect((await rpcAs(token, "ListTasks", {}, "/agents/writer/")).status).toBe(200);
  });

  it("applies frontmatter access lists; admins always pass", () => {
    const user = { id: "u1", role: "user" as const, agents: null, via: "token" as const };
    const admin = { ...user, id: "a1", role: "admin" as const };
    const restricted = { roles: ["admin"], users: ["u2"] };
    expect(mayUseAgent(user, "x", restricted)).toBe(false);
    expect(mayUseAgent({ ...user, id: "u2" }, "x", restricted)).toBe(true);
    expect(mayUseAgent(admin, "x", restricted)).toBe(true);
    expect(mayUseAgent(user, "x", { roles: null, users: null })).toBe(true);
    expect(mayUseAgent({ ...user, agents: ["y"] }, "x", { roles: null, users: null })).toBe(false);
  });

  it("keeps admin routes for admins", async () => {
    const user = await newUser();
    const admin = await newUser("admin");
    const list = (token: string) =>
      callWorker("/api/admin/knowledge", { headers: { Authorization: `Bearer ${token}` } });
    expect((await list(user.token)).status).toBe(403);
    expect((await list(admin.token)).status).toBe(200);
  });

  it("keeps the user ids the harness gives principals itself out of admins' hands", async () => {
    const admin = await newUser("admin");
    const create = (id: string) =>
      callWorker("/api/admin/users", {
        method: "POST",
        headers: { Authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
        body: JSON.stringify({ id }),
      });
    // A delegated principal's id, an OIDC subject's, an anonymous conversation's, the claims'.
    const ids = [
      await delegatedOwner("https://peer.test", "alice", "assistant"),
      `oidc-${(await tokenHash("https://id.example.test#someone")).slice(0, 24)}`,
      "dlg-x",
      "oidc-x",
      "anon-x",
      "anonymous",
      "admin-key",
      "api-key",
    ];
    for (const id of ids) {
      const refused = await create(id);
      expect(refused.status, id).toBe(400);
      expect(await refused.text(), id).toContain("reserved");
    }
    expect((await create(`ok-${crypto.randomUUID().slice(0, 8)}`)).status).toBe(201);
  });
});

describe("revocation by an admin", () => {
  it("cancels the user's running and waiting tasks, leaving ended ones and others' alone", async () => {
    const user = await newUser();
    const other = await newUser();
    const done = await scenario([{ text: "finished" }]);
    // 200 deltas 200 ms apart: still streaming when the revocation comes.
    const slow = () => [{ text: "x".repeat(200), chunkSize: 1, delayMs: 200 }];
    const long = await scenario(slow());
    const theirs = await scenario(slow());
    const asking = await scenario([toolTurn("ask_user", { question: "Which one?" })]);
    const send = async (token: string, text: string, returnImmediately: boolean) =>
      (
        await rpcAs<{ task: Task }>(token, "SendMessage", {
          message: userMessage(text),
          configuration: { returnImmediately },
        })
      ).body.result?.task as Task;
    const ended = await send(user.token, `done ${done.marker}`, false);
    expect(ended.status.state).toBe("TASK_STATE_COMPLETED");
    const running = await send(user.token, `long ${long.marker}`, true);
    const waiting = await send(user.token, `ask ${asking.marker}`, false);
    expect(waiting.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const othersTask = await send(other.token, `theirs ${theirs.marker}`, true);
    // The index has both tasks in their states before the admin acts.
    await until(
      async () =>
        (
          await env.DB.prepare("SELECT state FROM tasks WHERE id IN (?, ?) ORDER BY state")
            .bind(running.id, waiting.id)
            .all<{ state: string }>()
        ).results.map((row) => row.state),
      (states) => states.join() === "TASK_STATE_INPUT_REQUIRED,TASK_STATE_WORKING",
    );

    const response = await callWorker(`/api/admin/users/${user.id}/revoke`, {
      method: "POST",
      headers: { Authorization: "Bearer test-admin-key" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ revoked: 1, canceledTasks: 2, moreTasks: false });

    const stateOf = async (id: string, owner: string) => {
      const got = (await stubByName(env.TASKS, id).get({ owner })) as
        | { ok: true; value: Task & { status: { message?: { parts: Array<{ text?: string }> } } } }
        | { ok: false };
      if (!got.ok) throw new Error(`no task ${id}`);
      return got.value.status;
    };
    for (const id of [running.id, waiting.id]) {
      const status = await stateOf(id, user.id);
      expect(status.state, id).toBe("TASK_STATE_CANCELED");
      expect(status.message?.parts[0]?.text).toBe(REVOKED_REASON);
    }
    expect((await stateOf(ended.id, user.id)).state).toBe("TASK_STATE_COMPLETED");
    expect((await stateOf(othersTask.id, other.id)).state).toBe("TASK_STATE_WORKING");
    await rpcAs(other.token, "CancelTask", { id: othersTask.id });
  });
});
