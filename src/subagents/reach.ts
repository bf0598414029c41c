/**
 * How a task reaches its sub-agents: the types it may call (none when the task is itself a
 * sub-agent's, never its own agent, within the network's call rules) and the transport a child
 * runs on (`local`: a task object of this Worker, reached through the task gateway's transport the
 * task object was given; otherwise the registry name of a remote agent).
 */

import { mayCall } from "../config/agent-network.ts";
import type { Config } from "../config/config.ts";
import type { SubagentType } from "../loop/contracts.ts";
import { type DelegatingTask, onBehalfOf } from "../remote/delegation.ts";
import { remoteAgentsFor } from "../remote/handle.ts";
import { subagentTypes } from "./registry.ts";
import { remoteTransport } from "./remote.ts";
import type { ChildTransport, LocalTransportFor } from "./transport.ts";

/** The task that delegates. */
export interface Delegator {
  owner: string;
  agent: string;
  /** The user object counting the task's budgets (null: its owner's). */
  counters: string | null;
  traceId: string;
  /** The task is a sub-agent's (local or remote): it delegates to no one. */
  isSubagent: boolean;
  /** The task itself: whom its remote children's delegation tokens are for. */
  task: DelegatingTask;
}

/** The sub-agent types `caller` may call. */
export function callableTypes(config: Config, caller: Delegator): SubagentType[] {
  if (caller.isSubagent) return [];
  return subagentTypes(config).filter(
    (t) => t.name !== caller.agent && mayCall(config.network, caller.agent, t.name),
  );
}

/** The transport of `caller`'s children of transport `name`; `local` runs the local ones. */
export function transportFor(
  env: Env,
  config: Config,
  caller: Delegator,
  name: string,
  local: LocalTransportFor,
): ChildTransport {
  if (name === "local") return local(env, caller);
  const onBehalf = onBehalfOf(config, caller.task);
  return remoteTransport(
    remoteAgentsFor(env, config, caller.agent, caller.traceId, onBehalf),
    name,
  );
}
