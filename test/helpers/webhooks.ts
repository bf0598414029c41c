/**
 * Webhook deliveries in tests inside workerd: the closed deployment's bindings with webhooks whose
 * secret is HOOK_SECRET, a GitHub push webhook of an owner's assistant, and a delivery posted as
 * JSON.
 */
import { callWorker, closedEnv } from "./as-user.ts";

/** The closed deployment's bindings with `webhooks` as WEBHOOKS, HOOK_SECRET being `secret`. */
export function withWebhooks(
  secret: string,
  webhooks: Record<string, Record<string, unknown>>,
): Env {
  return { ...closedEnv, HOOK_SECRET: secret, WEBHOOKS: JSON.stringify(webhooks) } as Env;
}

/** A GitHub webhook of `owner`'s assistant for push events, signed with HOOK_SECRET. */
export function githubPushHook(
  owner: string,
  prompt: string,
  more: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    agent: "assistant",
    owner,
    secret: "HOOK_SECRET",
    signature: "github",
    events: ["push"],
    prompt,
    ...more,
  };
}

/** Posts `body` to webhook `hook` as JSON with `headers`. */
export function deliver(
  bindings: Env,
  hook: string,
  body: string,
  headers: Record<string, string>,
): Promise<Response> {
  return callWorker(
    `/webhooks/${hook}`,
    { method: "POST", headers: { "content-type": "application/json", ...headers }, body },
    bindings,
  );
}
