/**
 * Runs one operation of the method table (methods.ts) on the task gateway, with params already
 * validated in v1.0 wire form, and answers in v1.0 wire form (a JSON-RPC `result`); the bindings
 * only frame it. The extended card is the binding's own (extended-card.ts), where the agent has one.
 */
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { GatewayEvent, SubscribeParams } from "../gateway/task-gateway.ts";
import type {
  CancelTaskParams,
  GetTaskParams,
  ListTasksParams,
  PushConfigParams,
  SendMessageParams,
} from "../protocol/params.ts";
import type { CallContext } from "./call-context.ts";
import type { A2AVersion, Operation } from "./methods.ts";

/** Runs a streaming operation: the gateway's events, each with its sequence number. */
export function runStream(
  ctx: CallContext,
  op: Operation,
  params: unknown,
): AsyncGenerator<GatewayEvent, void> {
  const { gateway, caller } = ctx;
  if (op === "stream") return gateway.stream(caller, params as SendMessageParams);
  const subscribe = { ...(params as SubscribeParams), after: ctx.lastEventId };
  return gateway.subscribe(caller, subscribe);
}

/** Runs a unary operation; `version` picks the extended card's shape. */
export async function runUnary(
  ctx: CallContext,
  op: Operation,
  params: unknown,
  version: A2AVersion,
): Promise<unknown> {
  const { gateway, caller } = ctx;
  switch (op) {
    case "send":
      return gateway.send(caller, params as SendMessageParams);
    case "get":
      return gateway.get(caller, params as GetTaskParams);
    case "cancel":
      return gateway.cancel(caller, params as CancelTaskParams);
    case "list": {
      const input = params as ListTasksParams;
      const page = await gateway.list(caller, input);
      // Asked for artifacts: every task says it, an empty list included.
      if (!input.includeArtifacts) return page;
      return { ...page, tasks: page.tasks.map((t) => ({ ...t, artifacts: t.artifacts ?? [] })) };
    }
    case "setPushConfig":
    case "getPushConfig":
    case "listPushConfigs":
      // The three take the same params; the method is the operation's name.
      return gateway[op](caller, params as PushConfigParams);
    case "deletePushConfig":
      await gateway.deletePushConfig(caller, params as PushConfigParams);
      return null;
    case "extendedCard": {
      const card = await ctx.extendedCard(version);
      if (!card)
        throw new UnsupportedOperationError(
          "this agent has no extended agent card (capabilities.extendedAgentCard is false)",
        );
      return card;
    }
    case "stream":
    case "subscribe":
      throw new Error(`${op} is a streaming operation`);
  }
}
