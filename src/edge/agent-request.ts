/**
 * One call to an agent, as every face of it (A2A JSON-RPC and HTTP+JSON, MCP, AG-UI) starts it:
 * the public base URL, the agent the path names (or why none), whether the caller may use it, and
 * the agent's task gateway with the caller as the gateway knows it (identity, budgets and trace).
 */
import type { Context } from "hono";
import type { AgentDefinition } from "../agents/identity.ts";
import { unavailableReason } from "../agents/identity-error.ts";
import { currentAgents } from "../agents/overrides.ts";
import { servedAgent, servedAgents } from "../agents/roster.ts";
import { describeDelegation } from "../auth/delegated.ts";
import { mayUseAgent } from "../auth/principal.ts";
import { loadConfig } from "../config/config.ts";
import { delegatedMayCall } from "../config/delegation-patterns.ts";
import { agentUrl, baseUrl } from "../config/public-url.ts";
import { durableGateway } from "../gateway/durable-gateway.ts";
import type { GatewayCaller, TaskGateway } from "../gateway/task-gateway.ts";
import { HttpError } from "../platform/http-error.ts";
import { errorFields, log } from "../platform/logging.ts";
import { type AppEnv, budgetOf } from "../protocol/app-types.ts";
import type { PushProtocol } from "../push/push-config.ts";
import { counterKey } from "../users/limits.ts";
import { METHOD_NOT_FOUND } from "./errors.ts";

/** The endpoint of the agent `name` for the request `c` answers. */
export const agentEndpoint = (c: Context<AppEnv>, name: string) => agentUrl(baseUrl(c), name);

/** A 404 naming the agents served, with the JSON-RPC code of an unknown method. */
function unknownAgent(c: Context<AppEnv>, name: string): HttpError {
  const known = servedAgents(c.env).map((agent) => agent.name);
  return new HttpError(404, `Unknown agent '${name.slice(0, 100)}'. Agents: ${known.join(", ")}.`, {
    rpcCode: METHOD_NOT_FOUND,
  });
}

/**
 * The served agent `name` (agents/roster.ts), or the error that says why there is none: a 503
 * naming the file, line and field of a broken IDENTITY.md, else `notFound` (by default a 404
 * naming the agents served).
 */
export function agentNamed(
  c: Context<AppEnv>,
  name: string,
  notFound: () => HttpError = () => unknownAgent(c, name),
): AgentDefinition {
  const agent = servedAgent(c.env, name);
  if (agent) return agent;
  const broken = currentAgents().broken(name);
  if (broken)
    throw new HttpError(503, `Agent '${name}' is unavailable: ${unavailableReason(broken)}`);
  throw notFound();
}

/**
 * The default agent (`DEFAULT_AGENT`), whose aliases the root URLs are: one switched off
 * (`ENABLE_<NAME>=false`) answers there as it does at its own URLs (404, an unknown agent).
 */
export const defaultAgent = (c: Context<AppEnv>): AgentDefinition =>
  agentNamed(c, loadConfig(c.env).defaultAgent);

/** The task gateway of `agent`, over its task objects. */
export function agentGateway(c: Context<AppEnv>, agent: AgentDefinition): TaskGateway {
  return durableGateway({
    tasks: c.env.TASKS,
    db: c.env.DB,
    definition: agent,
    allowPrivateUrls: loadConfig(c.env).webFetchAllowPrivate,
    longPollMs: loadConfig(c.env).longPollSeconds * 1000,
  });
}

/** The request's caller as the gateway knows it; `protocol`: the generation it speaks. */
export function gatewayCaller(c: Context<AppEnv>, protocol: PushProtocol): GatewayCaller {
  const principal = c.get("principal");
  const traceParent = c.get("traceParent");
  return {
    owner: c.get("owner"),
    counters: counterKey(principal, c.req.header("CF-Connecting-IP") ?? null),
    ...budgetOf(principal),
    ...(principal.delegation ? { delegation: principal.delegation } : {}),
    traceId: c.get("traceId"),
    ...(traceParent ? { traceParent } : {}),
    protocol,
    baseUrl: baseUrl(c),
  };
}

export const internalErrorLogger = (c: Context<AppEnv>) => (error: unknown) =>
  log("error", "internal error", {
    traceId: c.get("traceId"),
    requestId: c.get("requestId"),
    ...errorFields(error),
  });

/** Throws a 403 when the caller may not use `agent` (its access list, or the frontmatter's `access`). */
export function checkAccess(c: Context<AppEnv>, agent: AgentDefinition): void {
  const principal = c.get("principal");
  const delegation = principal.delegation;
  if (!mayUseAgent(principal, agent.name, agent.access))
    throw new HttpError(
      403,
      delegation
        ? `the agent ${agent.name}'s access rules do not admit ${describeDelegation(delegation)}`
        : `you may not use the agent ${agent.name}`,
    );
  if (delegation && !delegatedMayCall(loadConfig(c.env).network.callRules, delegation, agent.name))
    throw new HttpError(
      403,
      `AGENT_CALL_RULES do not let ${describeDelegation(delegation)} call ${agent.name}`,
    );
}
