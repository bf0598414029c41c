/**
 * Privacy (LGPD): GET /api/privacy answers the policy (the default written from the retention
 * settings, or the operator's link and version); a user's consent is recorded with its version
 * and time, exported with their data and erased with it; with REQUIRE_CONSENT a message is
 * refused (403, the policy link, CONSENT_REQUIRED) until the user consents, an anonymous caller's
 * message carries its consent in its metadata, and the deployment's keys are not asked.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { userMessage, type WireTask } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";

type Json = Record<string, unknown>;
type Policy = {
  version: string;
  text: string;
  url: string;
  consentRequired: boolean;
  retention: { taskDays: number | null; anonymousTaskDays: number | null };
  stored: Array<{ what: string; where: string; kept: string }>;
};

async function call(path: string, init: RequestInit, bindings: Env, token?: string) {
  const response = await callWorker(
    path,
    {
      ...init,
      headers: {
        "content-type": "application/json",
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(init.headers ?? {}),
      } as HeadersInit,
    },
    bindings,
  );
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
}

const policyOf = async (bindings: Env) =>
  (await call("/api/privacy", {}, bindings)).body as unknown as Policy;

const consent = (token: string, version: string, bindings: Env = closedEnv) =>
  call(
    "/api/privacy/consent",
    { method: "POST", body: JSON.stringify({ version }) },
    bindings,
    token,
  );

describe("GET /api/privacy", () => {
  it("answers a default policy written from the retention settings, without credentials", async () => {
    const policy = await policyOf(closedEnv);
    expect(policy.version).toMatch(/^[0-9a-f]{12}$/);
    expect(policy).toMatchObject({
      url: "http://harness.test/api/privacy",
      consentRequired: false,
      retention: { taskDays: null, anonymousTaskDays: null },
    });
    expect(policy.text).toContain("What is stored, where, and for how long:");
    expect(policy.text).toContain("until you delete the conversation or erase your data");
    expect(policy.stored.map((s) => s.where).join(" ")).toContain("D1 database");

    const kept = await policyOf({
      ...closedEnv,
      RETENTION_DAYS: "7",
      ANONYMOUS_RETENTION_DAYS: "3",
      ALLOW_ANONYMOUS: "true",
    } as Env);
    expect(kept.retention).toEqual({ taskDays: 7, anonymousTaskDays: 3 });
    expect(kept.text).toContain("7 days after each task ends, then erased");
    expect(kept.text).toContain("a conversation without an account");
    expect(kept.version).not.toBe(policy.version);

    const operator = await policyOf({
      ...closedEnv,
      PRIVACY_POLICY_URL: "https://example.com/privacy",
      PRIVACY_POLICY_VERSION: "2026-01",
    } as Env);
    expect(operator).toMatchObject({ version: "2026-01", url: "https://example.com/privacy" });
    expect(operator.text).toContain("https://example.com/privacy");
  });
});

describe("consent", () => {
  it("is recorded per user with its version and time, exported and erased with their data", async () => {
    const user = await newUser();
    const { version } = await policyOf(closedEnv);
    expect((await consent(user.token, "not-the-version")).status).toBe(409);
    const given = await consent(user.token, version);
    expect(given.status).toBe(200);
    expect(given.body).toMatchObject({ user: user.id, version, current: true });
    const at = (given.body.consent as { at: string }).at;
    expect(Date.parse(at)).not.toBeNaN();
    expect((await call("/api/privacy/consent", {}, closedEnv, user.token)).body).toMatchObject({
      consent: { version, at },
      current: true,
    });

    const exported = await call(`/api/users/${user.id}/data`, {}, closedEnv, user.token);
    expect(exported.body.user).toMatchObject({ id: user.id, consent: { version, at } });

    const erased = await call(
      `/api/users/${user.id}/data`,
      { method: "DELETE" },
      closedEnv,
      user.token,
    );
    expect(erased.status).toBe(204);
    const row = await env.DB.prepare("SELECT consent_version FROM users WHERE id = ?")
      .bind(user.id)
      .first();
    expect(row).toBeNull();
  });

  it("is not something anonymous callers or the deployment's keys record", async () => {
    const open = { ...closedEnv, ALLOW_ANONYMOUS: "true" } as Env;
    const anonymous = await call("/api/privacy/consent", { method: "POST", body: "{}" }, open);
    expect(anonymous.status).toBe(403);
    expect(JSON.stringify(anonymous.body)).toContain("metadata.privacyConsent");
    const key = await call("/api/privacy/consent", {}, closedEnv, "test-admin-key");
    expect(key.status).toBe(403);
  });
});

describe("REQUIRE_CONSENT", () => {
  const required = { ...closedEnv, REQUIRE_CONSENT: "true" } as Env;

  it("refuses a user's messages until they consent, and again once they withdraw", async () => {
    const user = await newUser();
    const policy = await policyOf(required);
    expect(policy.consentRequired).toBe(true);
    const s = await scenario([{ text: "worked" }]);
    const send = () =>
      rpcAs<{ task: WireTask }>(
        user.token,
        "SendMessage",
        { message: userMessage(`work ${s.marker}`) },
        "/",
        required,
      );
    const refused = await send();
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: -32000,
      message: expect.stringContaining(
        `Read it at http://harness.test/api/privacy; then POST /api/privacy/consent with {"version":"${policy.version}"}`,
      ),
      data: [
        expect.objectContaining({
          reason: "CONSENT_REQUIRED",
          metadata: { policyVersion: policy.version, policyUrl: "http://harness.test/api/privacy" },
        }),
        expect.objectContaining({
          links: [{ description: "privacy policy", url: expect.any(String) }],
        }),
      ],
    });
    // Reading is never refused.
    expect((await rpcAs(user.token, "ListTasks", {}, "/", required)).status).toBe(200);
    const rest = await call(
      "/agents/writer/message:send",
      {
        method: "POST",
        headers: { "A2A-Version": "1.0" },
        body: JSON.stringify({ message: userMessage("x") }),
      },
      required,
      user.token,
    );
    expect(rest.status).toBe(403);
    expect(rest.body.error).toMatchObject({ status: "PERMISSION_DENIED" });

    expect((await consent(user.token, policy.version, required)).status).toBe(200);
    const sent = await send();
    expect(sent.status).toBe(200);
    expect(sent.body.result?.task.status.state).toBe("TASK_STATE_COMPLETED");

    // A new policy version asks again.
    const next = { ...required, PRIVACY_POLICY_VERSION: "next" } as Env;
    const again = await rpcAs(user.token, "SendMessage", { message: userMessage("x") }, "/", next);
    expect(again.status).toBe(403);

    expect(
      (await call("/api/privacy/consent", { method: "DELETE" }, required, user.token)).status,
    ).toBe(204);
    expect((await send()).status).toBe(403);
  });

  it("takes an anonymous caller's consent from the message, kept in its task; keys are not asked", async () => {
    const open = { ...required, ALLOW_ANONYMOUS: "true" } as Env;
    const { version } = await policyOf(open);
    const refused = await rpcAs(null, "SendMessage", { message: userMessage("hi") }, "/", open);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain(`metadata.privacyConsent = "${version}"`);

    const s = await scenario([{ text: "hello" }]);
    const message = userMessage(`hi ${s.marker}`, { metadata: { privacyConsent: version } });
    const sent = await rpcAs<{ task: WireTask }>(null, "SendMessage", { message }, "/", open);
    expect(sent.status).toBe(200);
    const task = sent.body.result?.task as WireTask & {
      history: Array<{ metadata?: Json }>;
    };
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.history[0]?.metadata).toMatchObject({ privacyConsent: version });

    const k = await scenario([{ text: "as the key" }]);
    const byKey = await rpcAs(
      "test-admin-key",
      "SendMessage",
      { message: userMessage(`key ${k.marker}`) },
      "/",
      required,
    );
    expect(byKey.status).toBe(200);
  });
});
