/**
 * The remote-agent handle a task's tools get (the loop's {@link RemoteAgents} contract): the
 * registry, and a connection (target plus the fetch that adds trace and credentials) to a name or
 * URL, after the call rules say the calling agent may reach it.
 */

import { mayCall } from "../config/agent-network.ts";
import type { Config } from "../config/config.ts";
import type { RemoteAgents } from "../loop/contracts.ts";
import { resolveTarget, targetFetch } from "./client.ts";
import { type DelegatingTask, type OnBehalf, onBehalfOf } from "./delegation.ts";

/**
 * The handle for a task of agent `caller` with trace `traceId`, whose calls are for `onBehalf`
 * (none: no delegation token is sent, as for health checks).
 */
export function remoteAgentsFor(
  env: object,
  config: Config,
  caller: string,
  traceId: string,
  onBehalf: Promise<OnBehalf> | null = null,
): RemoteAgents {
  return {
    registry: () => Object.values(config.network.agents),
    connect(nameOrUrl) {
      const resolved = resolveTarget(config, nameOrUrl.trim());
      if (!resolved.ok) return resolved;
      const callee = resolved.target.entry?.name ?? resolved.target.label;
      if (!mayCall(config.network, caller, callee)) {
        return {
          ok: false,
          error: `AGENT_CALL_RULES do not let ${caller} call ${callee}`,
        };
      }
      return {
        ok: true,
        target: resolved.target,
        fetch: targetFetch(env, config, resolved.target, traceId, onBehalf),
      };
    },
  };
}

/** {@link remoteAgentsFor} of a task: its agent and trace, its calls on behalf of whom it works for. */
export function remoteAgentsOfTask(
  env: object,
  config: Config,
  task: DelegatingTask & { traceId: string },
): RemoteAgents {
  return remoteAgentsFor(env, config, task.agent, task.traceId, onBehalfOf(config, task));
}
