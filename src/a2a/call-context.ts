/**
 * What an A2A call runs with: the agent's task gateway and the caller (the edge's, as every face
 * has them: edge/agent-request.ts, with the extensions the request activated:
 * extension-activation.ts), the SSE `Last-Event-ID` of a reconnecting subscriber, and the
 * agent's cards, which are A2A's own (the extended card: extended-card.ts).
 */
import type { Context } from "hono";
import type { AgentDefinition } from "../agents/identity.ts";
import { agentGateway, gatewayCaller } from "../edge/agent-request.ts";
import type { GatewayCaller, TaskGateway } from "../gateway/task-gateway.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { agentCard } from "./cards/card-route.ts";
import { extendedCardFor } from "./cards/extended-card.ts";
import { generationsActive } from "./extension-activation.ts";
import type { A2AVersion } from "./version.ts";

/** What a call runs with: the agent's gateway, who calls, and the agent's card. */
export interface CallContext {
  gateway: TaskGateway;
  caller: GatewayCaller;
  /** The SSE `Last-Event-ID` of a reconnecting subscriber, if any. */
  lastEventId: number | null;
  /** The agent's card in the shape of `version`. */
  card(version: A2AVersion): Promise<Record<string, unknown>>;
  /** The extended card this caller gets in the shape of `version`, or null: none (extended-card.ts). */
  extendedCard(version: A2AVersion): Promise<Record<string, unknown> | null>;
}

/** The `Last-Event-ID` a reconnecting subscriber sent, when it is a sequence number. */
function lastEventIdOf(c: Context<AppEnv>): number | null {
  const id = Number.parseInt(c.req.header("Last-Event-ID") ?? "", 10);
  return Number.isSafeInteger(id) && id >= 0 ? id : null;
}

/** What one A2A call to `agent` (served at `endpoint`) runs with. */
export function callContext(
  c: Context<AppEnv>,
  agent: AgentDefinition,
  endpoint: string,
  protocol: A2AVersion,
): CallContext {
  return {
    gateway: agentGateway(c, agent),
    caller: {
      ...gatewayCaller(c, protocol),
      ...(generationsActive(c.req.raw) ? { generations: true } : {}),
    },
    lastEventId: lastEventIdOf(c),
    card: async (version) => (await agentCard(c, agent, endpoint, version)).card,
    extendedCard: async (version) =>
      extendedCardFor(c, agent, (await agentCard(c, agent, endpoint, version)).card),
  };
}
