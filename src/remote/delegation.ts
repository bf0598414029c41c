/**
 * Sending delegation tokens: a task that calls another agent says who it works for. Its
 * {@link OnBehalf} (the user, or an opaque per-conversation id for an anonymous caller; the actor
 * chain it was itself called with; the opaque correlation id of the calling task) becomes, for
 * every request to the target, a fresh token (auth/delegation-token.ts) signed with the card key.
 * A token goes only to a target whose card declares the delegation scheme and lists this
 * deployment (PUBLIC_URL) among its trusted issuers; anywhere else the registry entry's static
 * secret, if any, is sent (the weaker path: one principal, no user, no expiry).
 */
import type { AgentCard } from "@a2a-js/sdk";
import { isAnonymousOwner } from "../auth/anonymous.ts";
import { cardSigner } from "../auth/card-signer.ts";
import { type Actor, mintDelegationToken, TASK_SCOPE } from "../auth/delegation-token.ts";
import type { Config } from "../config/config.ts";
import { opaqueId } from "../platform/ids.ts";
import type { DelegatedCaller } from "../protocol/delegated-caller.ts";
import { DELEGATION_EXTENSION, DELEGATION_SCHEME } from "../protocol/extensions.ts";

/** Whom a task's calls are for. */
export interface OnBehalf {
  /** The user (`sub`). */
  user: string;
  /** The calling agent, prior actors nested. */
  actor: Actor;
  correlationId: string;
}

/** The part of a task record a delegation is derived from. */
export interface DelegatingTask {
  id: string;
  owner: string;
  agent: string;
  metadata: Record<string, unknown>;
}

/** Who a task works for: its owner, or for a delegated task the user and chain it was called with. */
export async function onBehalfOf(config: Config, task: DelegatingTask): Promise<OnBehalf> {
  const called = task.metadata.delegation as DelegatedCaller | undefined;
  const user = called
    ? called.user
    : isAnonymousOwner(task.owner)
      ? `conversation-${await opaqueId("conversation", task.owner)}`
      : task.owner;
  const prior = called ? { ...called.actor, iss: called.actor.iss ?? called.issuer } : undefined;
  return {
    user,
    actor: {
      sub: task.agent,
      ...(config.publicUrl ? { iss: config.publicUrl } : {}),
      ...(prior ? { act: prior } : {}),
    },
    correlationId: await opaqueId("parent", task.id),
  };
}

/** Whether `card` takes delegation tokens from `issuer`. */
export function acceptsDelegationFrom(card: AgentCard, issuer: string): boolean {
  const schemes = (card.securitySchemes ?? {}) as Record<string, unknown>;
  if (!(DELEGATION_SCHEME in schemes)) return false;
  const extension = card.capabilities?.extensions?.find((e) => e.uri === DELEGATION_EXTENSION);
  const issuers: unknown = extension?.params?.issuers;
  return (
    Array.isArray(issuers) &&
    issuers.some((i) => typeof i === "string" && i.replace(/\/+$/, "") === issuer)
  );
}

/** The delegation token for one request to the agent at `audience`, or null where none is sent. */
export async function delegationBearer(
  env: Env,
  config: Config,
  card: AgentCard | null,
  audience: string,
  onBehalf: OnBehalf,
): Promise<string | null> {
  const issuer = config.publicUrl;
  if (!issuer || !card || !acceptsDelegationFrom(card, issuer)) return null;
  const signer = await cardSigner(env);
  if (!signer)
    throw new Error(
      "the agent takes delegation tokens from this deployment, but AGENT_CARD_SIGNING_KEY is not set to sign them",
    );
  return mintDelegationToken(
    signer,
    {
      issuer,
      subject: onBehalf.user,
      actor: onBehalf.actor,
      audience,
      correlationId: onBehalf.correlationId,
      scope: TASK_SCOPE,
    },
    config.delegation.tokenMinutes,
  );
}
