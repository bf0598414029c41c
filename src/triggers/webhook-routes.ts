/**
 * `POST /webhooks/<name>`: a signed event starts a task on the webhook's agent, as its owner,
 * with the prompt rendered from the payload (JSON, or GitHub's form-encoded `payload=`).
 *
 * - Bad or missing signature (or timestamp outside the replay window): 401, no task.
 * - Valid: 202 `{ taskId, contextId, state, url, redelivery }`.
 * - The delivery id (`X-GitHub-Delivery`, else `Idempotency-Key`, else the body's SHA-256) makes a
 *   redelivery answer with the first delivery's task instead of starting another.
 * - GitHub's `ping`, and events outside the webhook's `events` list: 200, no task.
 */
import { Hono } from "hono";
import type { AppEnv } from "../a2a/app-types.ts";
import { apiError } from "../api/errors.ts";
import { loadConfig } from "../config.ts";
import { log } from "../platform/logging.ts";
import { verifyGeneric, verifyGithub } from "./signatures.ts";
import { startTriggeredTask, TriggerSetupError } from "./start-task.ts";
import { renderPrompt } from "./template.ts";
import { type WebhookConfig, webhooks } from "./trigger-config.ts";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The payload: JSON, or the `payload` field of a form-encoded body (GitHub's other format). */
function parsePayload(body: string, contentType: string): unknown {
  const text = contentType.includes("application/x-www-form-urlencoded")
    ? (new URLSearchParams(body).get("payload") ?? "")
    : body;
  return JSON.parse(text);
}

async function verified(
  c: { req: { header(n: string): string | undefined } },
  hook: WebhookConfig,
  env: Env,
  body: string,
) {
  const secret = (env as unknown as Record<string, unknown>)[hook.secret];
  if (typeof secret !== "string" || secret === "") return "no-secret" as const;
  const ok =
    hook.signature === "github"
      ? await verifyGithub(secret, body, c.req.header("X-Hub-Signature-256") ?? null)
      : await verifyGeneric(
          secret,
          body,
          c.req.header("X-Signature") ?? null,
          c.req.header("X-Timestamp") ?? null,
          loadConfig(env).webhookReplayWindowSeconds,
        );
  return ok ? ("ok" as const) : ("bad" as const);
}

/** The webhook route. */
export function webhookRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/webhooks/:name", async (c) => {
    const name = c.req.param("name");
    const all = webhooks(c.env);
    const hook = Object.hasOwn(all, name) ? all[name] : undefined;
    if (!hook) return apiError(c, 404, `no webhook ${name}`);
    const body = await c.req.text();
    if (body.length > loadConfig(c.env).maxBodyBytes)
      return apiError(c, 413, "the body is larger than MAX_BODY_BYTES");
    const check = await verified(c, hook, c.env, body);
    if (check === "no-secret") {
      log("error", "webhook has no secret", { webhook: name, secret: hook.secret });
      return apiError(c, 503, `webhook ${name} is not ready: its secret is not configured`);
    }
    if (check === "bad") {
      c.header("WWW-Authenticate", 'HMAC realm="webhooks"');
      return apiError(c, 401, "Unauthorized: the signature does not match");
    }
    const event = c.req.header("X-GitHub-Event") ?? null;
    if (event === "ping") return c.json({ ok: true, webhook: name, pong: true });
    if (event !== null && hook.events && !hook.events.includes(event))
      return c.json({
        ok: true,
        webhook: name,
        ignored: `event ${event} is not in this webhook's events`,
      });
    let payload: unknown;
    try {
      payload = parsePayload(body, c.req.header("Content-Type") ?? "");
    } catch {
      return apiError(c, 400, "the body is not JSON (nor a form with a JSON payload field)");
    }
    const deliveryId =
      c.req.header("X-GitHub-Delivery") ??
      c.req.header("Idempotency-Key") ??
      `sha256:${await sha256Hex(body)}`;
    if (deliveryId.length > 256)
      return apiError(c, 400, "the delivery id is longer than 256 characters");
    const messageId = `webhook-${name}-${(await sha256Hex(deliveryId)).slice(0, 32)}`;
    const text = renderPrompt(hook.prompt, payload, {
      event: event ?? "",
      delivery: deliveryId,
      webhook: name,
      time: new Date().toISOString(),
    });
    let task: Awaited<ReturnType<typeof startTriggeredTask>>;
    try {
      task = await startTriggeredTask(c.env, {
        agent: hook.agent,
        owner: hook.owner,
        text,
        messageId,
        metadata: { trigger: { kind: "webhook", name, deliveryId, ...(event ? { event } : {}) } },
        ...(hook.push ? { push: hook.push } : {}),
      });
    } catch (error) {
      if (error instanceof TriggerSetupError) {
        log("error", "webhook cannot start its task", { webhook: name, error: error.message });
        return apiError(c, 503, `webhook ${name} is not ready: ${error.message}`);
      }
      throw error;
    }
    // The first delivery of an id inserts its row; each redelivery counts up (atomically).
    const row = await c.env.DB.prepare(
      `INSERT INTO webhook_deliveries (webhook, delivery_id, task_id, agent, owner, event, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (webhook, delivery_id) DO UPDATE SET redeliveries = redeliveries + 1
       RETURNING redeliveries`,
    )
      .bind(name, deliveryId, task.id, hook.agent, hook.owner, event, new Date().toISOString())
      .first<{ redeliveries: number }>();
    const redelivery = (row?.redeliveries ?? 0) > 0;
    const origin = loadConfig(c.env).publicUrl ?? new URL(c.req.url).origin;
    log("info", "webhook", { webhook: name, deliveryId, taskId: task.id, redelivery });
    return c.json(
      {
        taskId: task.id,
        contextId: task.contextId,
        state: task.status.state,
        url: `${origin.replace(/\/$/, "")}/agents/${hook.agent}/tasks/${task.id}`,
        redelivery,
      },
      202,
    );
  });
  return app;
}
