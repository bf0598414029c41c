/**
 * How a workspace is addressed: one workspace Durable Object per (agent, owner), named by
 * {@link workspaceKey}; the object's RPC methods are {@link WorkspaceApi}'s with the scope first.
 * Pure: no I/O.
 */
import { requireConcreteOwner } from "../auth/anonymous.ts";
import { userKey } from "../store/r2-keys.ts";
import type { WorkspaceApi } from "./types.ts";

/** Whose workspace a call is about; passed as the first argument of every workspace RPC. */
export interface WorkspaceScope {
  agent: string;
  owner: string;
  /** A change's idempotency key (platform/recent-calls.ts): a retry of it writes nothing more. */
  call?: string;
}

/** The Durable Object name of the workspace of `owner` with `agent`. */
export function workspaceKey(agent: string, owner: string): string {
  return JSON.stringify([agent, requireConcreteOwner(owner)]);
}

/**
 * The workspace object's RPC surface: every {@link WorkspaceApi} method with the scope first.
 * The object checks the scope against the one it first served (one object per agent and owner).
 */
export type WorkspaceRpc = {
  [K in keyof WorkspaceApi]: (
    scope: WorkspaceScope,
    ...args: Parameters<WorkspaceApi[K]>
  ) => ReturnType<WorkspaceApi[K]>;
};

/**
 * Checks a call's (untrusted) scope against the one the object serves (`known`, null before its
 * first call): both names are strings fit for a storage key, and the same as before.
 */
export function checkScope(
  known: WorkspaceScope | null,
  scope: WorkspaceScope | undefined,
): asserts scope is WorkspaceScope {
  if (typeof scope?.agent !== "string" || typeof scope?.owner !== "string")
    throw new Error("workspace call without a scope { agent, owner }");
  if (known && (known.agent !== scope.agent || known.owner !== scope.owner))
    throw new Error(
      `workspace scope mismatch: this object serves ${JSON.stringify(known)}, not ${JSON.stringify(scope)}`,
    );
  userKey(scope.agent, scope.owner, "probe"); // a KeyError for names unfit for a storage key
}
