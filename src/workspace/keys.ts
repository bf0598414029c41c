/**
 * How a workspace is addressed: one workspace Durable Object per (agent, owner), named by
 * {@link workspaceKey}; the object's RPC methods are {@link WorkspaceApi}'s with the scope first.
 * Pure: no I/O.
 */
import { requireConcreteOwner } from "../auth/anonymous.ts";
import type { WorkspaceApi } from "./types.ts";

/** Whose workspace a call is about; passed as the first argument of every workspace RPC. */
export interface WorkspaceScope {
  agent: string;
  owner: string;
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
