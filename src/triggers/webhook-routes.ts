/**
 * `POST /webhooks/<name>`: a signed event starts a task on the webhook's agent, as its owner,
 * with the prompt rendered from the payload (JSON, or GitHub's form-encoded `payload=`). The one
 * state-changing route outside the JSON-only rule (platform/content-type.ts): GitHub sends forms,
 * and a delivery is authenticated by its signature, which no other site's page can make, never a
 * cookie.
 *
 * - A body over MAX_BODY_BYTES: 413 before it is read (Content-Length) or as soon as it passes.
 * - Bad or missing signature (or timestamp outside the replay window): 401, no task.
 * - Valid: 202 `{ taskId, contextId, state, url, redelivery }`.
 * - The event is named by what the signature covers: the body's SHA-256 (GitHub), the timestamp
 *   and the body (generic). A repeat of it answers with the first one's task instead of starting
 *   another, whatever unsigned headers (`X-GitHub-Delivery`, `Idempotency-Key`) it carries.
 * - GitHub's `ping`, events outside the webhook's `events` list, and (when `events` is set)
 *   requests without an `X-GitHub-Event`: 200, no task.
 * - An `anonymous` owner: each event its own anonymous conversation, whose id is an HMAC of the
 *   event under the webhook's secret (so only the signed sender learns it, from the 202).
 */
import { type Context, Hono } from "hono";
import { ANONYMOUS_CALLER } from "../auth/anonymous.ts";
import { loadConfig } from "../config/config.ts";
import { envNamed } from "../config/env-lookup.ts";
import { agentUrl, baseUrl } from "../config/public-url.ts";
import { readLimited } from "../platform/body-limit.ts";
import { hmacHex, sha256Hex } from "../platform/hex.ts";
import { HttpError } from "../platform/http-error.ts";
import { log } from "../platform/logging.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { TOO_DEEP_MESSAGE, tooDeep } from "../protocol/json-shape.ts";
import { verifyGeneric, verifyGithub } from "./signatures.ts";
import { startTriggeredTask, TriggerSetupError } from "./start-task.ts";
import { renderPrompt } from "./template.ts";
import { type WebhookConfig, webhooks } from "./trigger-config.ts";

const MAX_DELIVERY_ID = 256;

/** The payload: JSON, or the `payload` field of a form-encoded body (GitHub's other format). */
function parsePayload(body: string, contentType: string): unknown {
  const text = contentType.includes("application/x-www-form-urlencoded")
    ? (new URLSearchParams(body).get("payload") ?? "")
    : body;
  return JSON.parse(text);
}

/**
 * Checks the signature; on success, the secret and the event's key: a hash of exactly what the
 * signature covers (the body; for generic senders the timestamp and the body).
 */
async function verified(
  c: { req: { header(n: string): string | undefined } },
  hook: WebhookConfig,
  env: Env,
  body: string,
): Promise<"no-secret" | "bad" | { secret: string; eventKey: string }> {
  const secret = envNamed(env, hook.secret);
  if (typeof secret !== "string" || secret === "") return "no-secret";
  if (hook.signature === "github") {
    const ok = await verifyGithub(secret, body, c.req.header("X-Hub-Signature-256") ?? null);
    return ok ? { secret, eventKey: `sha256:${await sha256Hex(body)}` } : "bad";
  }
  const timestamp = c.req.header("X-Timestamp") ?? null;
  const ok = await verifyGeneric(
    secret,
    body,
    c.req.header("X-Signature") ?? null,
    timestamp,
    loadConfig(env).webhookReplayWindowSeconds,
  );
  return ok ? { secret, eventKey: `sha256:${await sha256Hex(`${timestamp}.${body}`)}` } : "bad";
}

/** The webhook route. */
export function webhookRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/webhooks/:name", deliver);
  return app;
}

/** One delivery: its webhook, its checked signature and event, the task it starts (or names). */
async function deliver(c: Context<AppEnv>): Promise<Response> {
  const name = c.req.param("name") ?? "";
  const all = webhooks(c.env);
  const hook = Object.hasOwn(all, name) ? all[name] : undefined;
  if (!hook) throw new HttpError(404, `no webhook ${name}`);
  const { body, secret, eventKey } = await signedBody(c, name, hook);
  const event = c.req.header("X-GitHub-Event") ?? null;
  if (event === "ping") return c.json({ ok: true, webhook: name, pong: true });
  const ignored = ignoredEvent(hook, event);
  if (ignored !== null) return c.json({ ok: true, webhook: name, ignored });
  const payload = checkedPayload(body, c.req.header("Content-Type") ?? "");
  // The sender's own delivery id, for the prompt and the task's metadata only: it is not signed,
  // so it never decides whether this is a new event.
  const deliveryId =
    c.req.header("X-GitHub-Delivery") ?? c.req.header("Idempotency-Key") ?? eventKey;
  if (deliveryId.length > MAX_DELIVERY_ID)
    throw new HttpError(400, `the delivery id is longer than ${MAX_DELIVERY_ID} characters`);
  const delivery: Delivery = { name, hook, event, deliveryId, eventKey, secret, payload };
  const task = await startTask(c, delivery);
  const redelivery = await recordDelivery(c.env.DB, delivery, task.id);
  log("info", "webhook", { webhook: name, deliveryId, eventKey, taskId: task.id, redelivery });
  return c.json(
    {
      taskId: task.id,
      contextId: task.contextId,
      state: task.status.state,
      url: `${agentUrl(baseUrl(c), hook.agent)}tasks/${task.id}`,
      redelivery,
    },
    202,
  );
}

/** A delivery past its checks: what starts its task and records it. */
interface Delivery {
  name: string;
  hook: WebhookConfig;
  event: string | null;
  deliveryId: string;
  /** What the signature covers, hashed: the event's identity. */
  eventKey: string;
  secret: string;
  payload: unknown;
}

/** The body, read within MAX_BODY_BYTES, with its verified signature's secret and event key. */
async function signedBody(
  c: Context<AppEnv>,
  name: string,
  hook: WebhookConfig,
): Promise<{ body: string; secret: string; eventKey: string }> {
  const bytes = await readLimited(c.req.raw, loadConfig(c.env).maxBodyBytes);
  if (bytes === null) throw new HttpError(413, "the body is larger than MAX_BODY_BYTES");
  const body = new TextDecoder().decode(bytes);
  const check = await verified(c, hook, c.env, body);
  if (check === "no-secret") {
    log("error", "webhook has no secret", { webhook: name, secret: hook.secret });
    throw new HttpError(503, `webhook ${name} is not ready: its secret is not configured`);
  }
  if (check === "bad") {
    c.header("WWW-Authenticate", 'HMAC realm="webhooks"');
    throw new HttpError(401, "Unauthorized: the signature does not match");
  }
  return { body, ...check };
}

/** Why a webhook with an `events` list ignores this event, or null when it starts a task. */
function ignoredEvent(hook: WebhookConfig, event: string | null): string | null {
  if (!hook.events || (event !== null && hook.events.includes(event))) return null;
  return event === null
    ? "no X-GitHub-Event header; this webhook starts tasks only for its events"
    : `event ${event} is not in this webhook's events`;
}

/** The payload, parsed and within the nesting limit. */
function checkedPayload(body: string, contentType: string): unknown {
  let payload: unknown;
  try {
    payload = parsePayload(body, contentType);
  } catch {
    throw new HttpError(400, "the body is not JSON (nor a form with a JSON payload field)");
  }
  const deep = tooDeep(payload);
  if (deep) throw new HttpError(400, `the payload at ${deep.join(".")} ${TOO_DEEP_MESSAGE}`);
  return payload;
}

/** Starts the delivery's task (or finds the one its event started); a webhook not set up: 503. */
async function startTask(c: Context<AppEnv>, delivery: Delivery) {
  const { name, hook, event, deliveryId, eventKey } = delivery;
  const messageId = `webhook-${name}-${eventKey.slice("sha256:".length, "sha256:".length + 32)}`;
  const text = renderPrompt(hook.prompt, delivery.payload, {
    event: event ?? "",
    delivery: deliveryId,
    webhook: name,
    time: new Date().toISOString(),
  });
  const anonymous =
    hook.owner === ANONYMOUS_CALLER
      ? {
          contextId: await hmacHex(delivery.secret, `webhook-context:${name}:${eventKey}`),
          counters: `webhook:${name}`,
        }
      : undefined;
  try {
    return await startTriggeredTask(c.env, {
      agent: hook.agent,
      owner: hook.owner,
      text,
      messageId,
      metadata: { trigger: { kind: "webhook", name, deliveryId, ...(event ? { event } : {}) } },
      ...(hook.push ? { push: hook.push } : {}),
      ...(anonymous ? { anonymous } : {}),
      // A delivery with a valid traceparent: its trace goes on in the task.
      ...(c.get("traceParent")
        ? { trace: { traceId: c.get("traceId"), traceParent: c.get("traceParent") } }
        : {}),
    });
  } catch (error) {
    if (error instanceof TriggerSetupError) {
      log("error", "webhook cannot start its task", { webhook: name, error: error.message });
      throw new HttpError(503, `webhook ${name} is not ready: ${error.message}`);
    }
    throw error;
  }
}

/** Records the delivery of its event; true when the event was delivered before. */
async function recordDelivery(db: D1Database, delivery: Delivery, taskId: string) {
  const { name, hook, event, eventKey } = delivery;
  // The first delivery of an event inserts its row; each repeat counts up (atomically).
  const row = await db
    .prepare(
      `INSERT INTO webhook_deliveries (webhook, delivery_id, task_id, agent, owner, event, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (webhook, delivery_id) DO UPDATE SET redeliveries = redeliveries + 1
       RETURNING redeliveries`,
    )
    .bind(name, eventKey, taskId, hook.agent, hook.owner, event, new Date().toISOString())
    .first<{ redeliveries: number }>();
  return (row?.redeliveries ?? 0) > 0;
}
