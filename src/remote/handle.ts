/**
 * The remote-agent handle a task's tools get: the registry, and a connection (target plus the
 * fetch that adds trace and credentials) to a name or URL, after the call rules say the calling
 * agent may reach it.
 */

import { mayCall, type RemoteAgentEntry } from "../config/agent-network.ts";
import type { Config } from "../config/config.ts";
import { type RemoteTarget, resolveTarget, targetFetch } from "./client.ts";
import { type DelegatingTask, type OnBehalf, onBehalfOf } from "./delegation.ts";

/** Remote A2A agents as a task's tools see them. */
export interface RemoteAgents {
  registry(): RemoteAgentEntry[];
  connect(
    nameOrUrl: string,
  ): { ok: true; target: RemoteTarget; fetch: typeof fetch } | { ok: false; error: string };
}

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
