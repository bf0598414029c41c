/**
 * Another site's page cannot make a signed-in visitor's browser change anything: a state-changing
 * request from another site (`Sec-Fetch-Site: cross-site`, or a foreign `Origin` from a browser
 * that sends no `Sec-Fetch-Site`) without an `Authorization` header is a 403 in its route's shape,
 * bodiless ones included (a revoke, a reload, the cron run, a cancel, a delete), before it is acted
 * on, when it carries Cloudflare Access's cookie-borne assertion and, with no credential at all,
 * unless it comes from a CORS origin. Same-site pages and clients that are not browsers are
 * unaffected; a bearer token from a CORS origin passes; signed webhook deliveries stay reachable.
 */
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { CROSS_SITE_REFUSED } from "../../src/auth/cross-site.ts";
import { signGithub } from "../../src/triggers/signatures.ts";
import { userMessage, type WireTask } from "../helpers/a2a.ts";
import { SERVED_AGENTS } from "../helpers/agent-set.ts";
import { callWorker, closedEnv, newUser, rpcAs } from "../helpers/as-user.ts";
import { until } from "../helpers/until.ts";

const AGENT = SERVED_AGENTS[0] ?? "assistant";
const ISSUER = "https://access.example.test";
const INSPECTOR = "https://inspector.example";
const EVIL = "https://evil.example";
const keys = await generateKeyPair("RS256", { extractable: true });
const hookOwner = await newUser();
const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
/** A deployment behind Cloudflare Access (its JWT verified as OIDC), with CORS for one origin. */
const accessEnv = {
  ...closedEnv,
  OIDC_ISSUER: ISSUER,
  OIDC_AUDIENCE: "a2a-harness",
  OIDC_JWKS: JSON.stringify({ keys: [jwk] }),
  CORS_ORIGINS: INSPECTOR,
  WEBHOOKS: JSON.stringify({
    hook: {
      agent: AGENT,
      owner: hookOwner.id,
      secret: "HOOK_SECRET",
      prompt: "[[reply:seen]] {{$json}}",
    },
  }),
  HOOK_SECRET: "cross-site-secret",
} as Env;
/** The same deployment open to anonymous callers (a public agent). */
const publicEnv = { ...accessEnv, ALLOW_ANONYMOUS: "true" } as Env;

/** What Access adds to a signed-in person's request: its JWT, from the CF_Authorization cookie. */
async function accessAssertion(subject: string): Promise<string> {
  return new SignJWT({ email: `${subject}@example.test` })
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(ISSUER)
    .setAudience("a2a-harness")
    .setSubject(subject)
    .setExpirationTime("5m")
    .sign(keys.privateKey);
}

/** An admin signed in through Access: the header Access adds to each of their requests. */
async function accessAdmin(): Promise<Record<string, string>> {
  const subject = `admin-${crypto.randomUUID().slice(0, 8)}`;
  await env.DB.prepare(
    "INSERT INTO users (id, name, role, subject, created_at) VALUES (?, ?, 'admin', ?, ?)",
  )
    .bind(`access-${subject}`, subject, `${ISSUER}#${subject}`, new Date().toISOString())
    .run();
  return { "Cf-Access-Jwt-Assertion": await accessAssertion(subject) };
}

/** How a browser marks a request from a page on another site, and from the deployment's own. */
const CROSS_SITE = { "Sec-Fetch-Site": "cross-site", Origin: EVIL };
const ORIGIN_ONLY = { Origin: EVIL };
const SAME_ORIGIN = { "Sec-Fetch-Site": "same-origin", Origin: "http://harness.test" };

const rest403 = { error: { code: 403, status: "PERMISSION_DENIED", message: CROSS_SITE_REFUSED } };
const rpc403 = { jsonrpc: "2.0", id: null, error: { code: -32000, message: CROSS_SITE_REFUSED } };
const task = "00000000-0000-4000-8000-000000000001";

/** Each kind of state-changing route, as a bodiless request: method, path, its 403's shape. */
const ROUTES: Array<[string, string, string, unknown]> = [
  ["JSON-RPC", "POST", `/agents/${AGENT}/`, rpc403],
  ["the default agent's JSON-RPC", "POST", "/", rpc403],
  ["a REST cancel", "POST", `/agents/${AGENT}/tasks/${task}:cancel`, rest403],
  ["a push config", "DELETE", `/agents/${AGENT}/tasks/${task}/pushNotificationConfigs/c1`, rest403],
  ["MCP", "POST", `/agents/${AGENT}/mcp`, rest403],
  ["AG-UI", "POST", `/agents/${AGENT}/ag-ui`, rest403],
  ["a revoke", "POST", "/api/admin/users/nobody/revoke", rest403],
  ["the agents' reload", "POST", "/api/admin/reload", rest403],
  ["the cron run", "POST", "/api/admin/cron", rest403],
  ["an agent's identity", "DELETE", `/api/admin/agents/${AGENT}/identity`, rest403],
  ["a knowledge document", "DELETE", "/api/admin/knowledge/some-doc", rest403],
  ["the storage meter", "DELETE", "/api/admin/storage-meter", rest403],
  ["a session", "DELETE", "/api/sessions/some-context", rest403],
  ["consent", "DELETE", "/api/privacy/consent", rest403],
  ["a user's data", "DELETE", "/api/users/nobody/data", rest403],
  ["a workspace file", "DELETE", `/api/workspaces/${AGENT}/files/notes.md`, rest403],
];

let admin: Record<string, string>;
beforeAll(async () => {
  admin = await accessAdmin();
});

/** Sends a bodiless `method` to `path` with `headers`. */
const bodiless = (
  method: string,
  path: string,
  headers: Record<string, string>,
  bindings = accessEnv,
) => callWorker(path, { method, headers }, bindings);

describe("cross-site state changes", () => {
  it.each(ROUTES)(
    "%s: a bodiless request from another site on the Access cookie is a 403",
    async (...route) => {
      const [, method, path, shape] = route;
      for (const [name, site] of [
        ["Sec-Fetch-Site", CROSS_SITE],
        ["Origin only", ORIGIN_ONLY],
      ] as const) {
        const response = await bodiless(method, path, { ...admin, ...site });
        expect(response.status, name).toBe(403);
        expect(await response.json(), name).toEqual(shape);
      }
    },
  );

  it("a cross-site revoke on the Access cookie leaves the token working; the same request same-origin revokes it", async () => {
    const victim = await newUser();
    const bearer = { Authorization: `Bearer ${victim.token}` };
    const me = async () => (await callWorker("/api/me", { headers: bearer }, accessEnv)).status;
    const revoke = `/api/admin/users/${victim.id}/revoke`;
    expect((await bodiless("POST", revoke, { ...admin, ...CROSS_SITE })).status).toBe(403);
    expect(await me()).toBe(200);
    expect((await bodiless("POST", revoke, { ...admin, ...SAME_ORIGIN })).status).toBe(200);
    expect(await me()).toBe(401);
  });

  it("same-site pages and clients that are not browsers pass", async () => {
    const headers: Array<[string, Record<string, string>]> = [
      ["same-origin", SAME_ORIGIN],
      ["same-site", { "Sec-Fetch-Site": "same-site", Origin: "https://console.harness.test" }],
      ["a user typing the address", { "Sec-Fetch-Site": "none" }],
      ["no Sec-Fetch-Site, own Origin", { Origin: "http://harness.test" }],
      ["not a browser", {}],
    ];
    for (const [name, site] of headers) {
      const response = await bodiless("POST", "/api/admin/reload", { ...admin, ...site });
      expect(response.status, name).toBe(200);
    }
  });

  it("PUBLIC_URL's origin is the deployment's own", async () => {
    const proxied = { ...accessEnv, PUBLIC_URL: "https://agents.example.com/base" } as Env;
    const own = { Origin: "https://agents.example.com" };
    expect(
      (await bodiless("POST", "/api/admin/reload", { ...admin, ...own }, proxied)).status,
    ).toBe(200);
    expect(
      (await bodiless("POST", "/api/admin/reload", { ...admin, ...ORIGIN_ONLY }, proxied)).status,
    ).toBe(403);
  });

  it("a bearer token from another site passes, with CORS headers for a CORS origin", async () => {
    const { token } = await newUser("admin");
    const bearer = { Authorization: `Bearer ${token}` };
    const fromInspector = { "Sec-Fetch-Site": "cross-site", Origin: INSPECTOR };
    const allowed = await bodiless("POST", "/api/admin/reload", { ...bearer, ...fromInspector });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe(INSPECTOR);
    // Another origin's page cannot read the answer (no CORS headers), and could send the header
    // only after a preflight, which CORS refuses; the rule itself never refuses a bearer token.
    const elsewhere = await bodiless("POST", "/api/admin/reload", { ...bearer, ...CROSS_SITE });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("the Access cookie is refused from a CORS origin too", async () => {
    const fromInspector = { "Sec-Fetch-Site": "cross-site", Origin: INSPECTOR };
    const response = await bodiless("POST", "/api/admin/reload", { ...admin, ...fromInspector });
    expect(response.status).toBe(403);
  });

  it("an anonymous browser client of a public agent passes from a CORS origin only", async () => {
    const send = (origin: string) =>
      callWorker(
        `/agents/${AGENT}/`,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "A2A-Version": "1.0",
            "Sec-Fetch-Site": "cross-site",
            Origin: origin,
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 4,
            method: "SendMessage",
            params: {
              message: userMessage("[[reply:hi]] hello"),
            },
          }),
        },
        publicEnv,
      );
    const fromInspector = await send(INSPECTOR);
    expect(fromInspector.status).toBe(200);
    expect(await fromInspector.json()).toMatchObject({
      id: 4,
      result: { task: { status: { state: "TASK_STATE_COMPLETED" } } },
    });
    const fromElsewhere = await send(EVIL);
    expect(fromElsewhere.status).toBe(403);
    expect(await fromElsewhere.json()).toEqual(rpc403);
    const cancel = await bodiless(
      "POST",
      `/agents/${AGENT}/tasks/${task}:cancel`,
      CROSS_SITE,
      publicEnv,
    );
    expect(cancel.status).toBe(403);
  });

  it("a signed webhook delivery from anywhere is still served", async () => {
    const body = JSON.stringify({ event: "cross-site" });
    const response = await callWorker(
      "/webhooks/hook",
      {
        method: "POST",
        headers: {
          ...CROSS_SITE,
          "content-type": "application/json",
          "X-Hub-Signature-256": await signGithub("cross-site-secret", body),
        },
        body,
      },
      accessEnv,
    );
    expect(response.status).toBe(202);
    const { taskId } = (await response.json()) as { taskId: string };
    await until(
      async () =>
        (await rpcAs<WireTask>(hookOwner.token, "GetTask", { id: taskId }, "/", accessEnv)).body,
      (answer) => answer.result?.status.state === "TASK_STATE_COMPLETED",
    );
  });
});
