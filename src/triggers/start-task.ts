/**
 * Starts a task for a trigger (a webhook delivery, a scheduled tick) as its configured owner,
 * through the same request handler as an A2A SendMessage, so the task is the same as any other:
 * owned, indexed, budgeted, streamable, with an optional push target. It calls the task gateway
 * in wire JSON, as every binding does. The message id is derived
 * from the trigger and its delivery or tick, so the same event always reaches the same task.
 *
 * An `anonymous` owner (where anonymous access is on) is allowed for webhooks only: each event
 * opens its own anonymous conversation, named by an id only the signed sender learns (the webhook
 * derives it with its secret), so the task is reachable by its id like any anonymous caller's and
 * by no one else. A schedule has no sender to tell, so it needs a user as its owner. An agent
 * switched off (`ENABLE_<NAME>=false`) starts nothing, as it answers nothing at its URLs.
 */
import { currentAgents } from "../agents/overrides.ts";
import { ANONYMOUS_CALLER } from "../auth/anonymous.ts";
import { getUser } from "../auth/users-store.ts";
import { loadConfig } from "../config/config.ts";
import { durableGateway } from "../gateway/durable-gateway.ts";
import { newTraceId } from "../platform/ids.ts";
import { userCounters } from "../platform/object-names.ts";
import type { Task } from "../protocol/wire.ts";
import { checkPushConfig } from "../push/push-config.ts";
import type { PushTarget } from "./trigger-config.ts";

/** What to start. */
export interface TriggerStart {
  agent: string;
  owner: string;
  text: string;
  messageId: string;
  metadata: Record<string, unknown>;
  push?: PushTarget;
  /** For an anonymous owner: the conversation the task opens, and who counts its budgets. */
  anonymous?: { contextId: string; counters: string };
  /** The trace the delivery carried (`traceparent`), continued by the task; else a new one. */
  trace?: { traceId: string; traceParent?: { parentSpanId: string; traceState?: string } };
}

/** Why a trigger could not start its task (a configuration problem, not the sender's). */
export class TriggerSetupError extends Error {
  override readonly name = "TriggerSetupError";
}

/**
 * Checks that the owner can own tasks: an active user, or `anonymous` where that is allowed and
 * the trigger gives the task a conversation of its own.
 */
async function checkOwner(env: Env, start: TriggerStart): Promise<void> {
  const owner = start.owner;
  if (owner === ANONYMOUS_CALLER) {
    if (!loadConfig(env).allowAnonymous)
      throw new TriggerSetupError("the owner is anonymous, but anonymous access is off");
    if (!start.anonymous)
      throw new TriggerSetupError(
        "only a webhook may be owned by anonymous (each event its own conversation); name a user as the owner",
      );
    return;
  }
  const user = await getUser(env.DB, owner);
  if (!user || user.disabledAt !== null)
    throw new TriggerSetupError(`the owner ${owner} is not an active user`);
}

/** A trigger's push target as the send's push config (wire form). */
function pushConfigOf(target: PushTarget | undefined) {
  if (!target) return null;
  return {
    url: target.url,
    ...(target.token ? { token: target.token } : {}),
    ...(target.authentication ? { authentication: target.authentication } : {}),
  };
}

/** Starts (or, for a repeated event, finds) the task; returns it as it is now. */
export async function startTriggeredTask(env: Env, start: TriggerStart): Promise<Task> {
  const agent = currentAgents().get(start.agent);
  if (!agent) throw new TriggerSetupError(`there is no agent ${start.agent}`);
  if (loadConfig(env).network.disabled.includes(start.agent))
    throw new TriggerSetupError(
      `the agent ${start.agent} is switched off (ENABLE_${start.agent.toUpperCase().replaceAll("-", "_")}=false)`,
    );
  await checkOwner(env, start);
  const push = pushConfigOf(start.push);
  if (push) {
    // The target is the operator's configuration, not the sender's: refusing it is the
    // deployment's setup error (503 naming it), never the caller's fault or an internal one.
    const checked = checkPushConfig(
      push,
      start.push?.protocol ?? "1.0",
      loadConfig(env).webFetchAllowPrivate,
    );
    if (!checked.ok) throw new TriggerSetupError(`its push target is refused: ${checked.reason}`);
  }
  const gateway = durableGateway({
    tasks: env.TASKS,
    db: env.DB,
    // A trigger's messageId is its idempotency key, and it always starts a task.
    definition: { ...agent, dedupeMessages: true, program: null },
    allowPrivateUrls: loadConfig(env).webFetchAllowPrivate,
  });
  const caller = {
    owner: start.owner,
    counters: start.anonymous?.counters ?? userCounters(start.owner),
    traceId: start.trace?.traceId ?? newTraceId(),
    ...(start.trace?.traceParent ? { traceParent: start.trace.traceParent } : {}),
    protocol: start.push?.protocol ?? "1.0",
  };
  const result = await gateway.send(caller, {
    message: {
      messageId: start.messageId,
      ...(start.anonymous ? { contextId: start.anonymous.contextId } : {}),
      role: "ROLE_USER",
      parts: [{ text: start.text }],
    },
    configuration: {
      returnImmediately: true,
      ...(push ? { taskPushNotificationConfig: push } : {}),
    },
    metadata: start.metadata,
  });
  if (!("task" in result)) throw new Error("the task did not start (a message came back)");
  return result.task;
}
