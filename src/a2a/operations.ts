/**
 * The operations every A2A binding runs, each typed by what it takes and gives: params in v1.0
 * wire form (validated by the method table, methods.ts, before they get here) and an answer in
 * v1.0 wire form, once (a unary operation) or as the task's events (a streaming one). They call
 * the task gateway with the call's caller; the bindings only frame what they answer. The extended
 * card is the binding's own (extended-card.ts), where the agent has one.
 */
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { ListTasksPage } from "../gateway/list-tasks.ts";
import type { GatewayEvent } from "../gateway/task-gateway.ts";
import type {
  CancelTaskParams,
  GetTaskParams,
  ListTasksParams,
  LiveMessageParams,
  PushConfigParams,
  SendMessageParams,
  SubscribeToTaskParams,
} from "../protocol/params.ts";
import type { Message, SendResult, Task, WirePushConfig } from "../protocol/wire.ts";
import type { CallContext } from "./call-context.ts";
import type { A2AVersion } from "./version.ts";

/** An operation that answers once. */
export interface Unary<P, R> {
  /** The operation's name, one in both versions: a method's counterpart runs the same one. */
  readonly name: string;
  readonly streaming: false;
  run(ctx: CallContext, params: P): Promise<R>;
  /** The message it sends (consent and the message rate read it), for one that sends. */
  message?(params: P): Message;
}

/** An operation that answers with the task's events, each with its sequence number. */
export interface Streaming<P> {
  /** The operation's name, one in both versions. */
  readonly name: string;
  readonly streaming: true;
  run(ctx: CallContext, params: P): AsyncGenerator<GatewayEvent, void>;
  /** The message it sends, for one that sends. */
  message?(params: P): Message;
}

const sent = (params: SendMessageParams) => params.message;

/** SendMessage: the task once it settles (or at once, if asked), or the agent's Message. */
export const send: Unary<SendMessageParams, SendResult> = {
  name: "send",
  streaming: false,
  run: (ctx, params) => ctx.gateway.send(ctx.caller, params),
  message: sent,
};

/** SendStreamingMessage: the task's events until it settles (or the agent's Message alone). */
export const stream: Streaming<SendMessageParams> = {
  name: "stream",
  streaming: true,
  run: (ctx, params) => ctx.gateway.stream(ctx.caller, params),
  message: sent,
};

/**
 * SendLiveMessage (the live-messages extension): the task at once, as the draft's
 * `StreamResponse`; the message waits for the working task's next step.
 */
export const live: Unary<LiveMessageParams, { task: Task }> = {
  name: "live",
  streaming: false,
  run: async (ctx, params) => ({ task: await ctx.gateway.live(ctx.caller, params) }),
  message: (params) => params.message,
};

export const getTask: Unary<GetTaskParams, Task> = {
  name: "getTask",
  streaming: false,
  run: (ctx, params) => ctx.gateway.get(ctx.caller, params),
};

/** ListTasks: a page of the caller's tasks; asked for artifacts, every task says it (`[]` too). */
export const listTasks: Unary<ListTasksParams, ListTasksPage> = {
  name: "listTasks",
  streaming: false,
  async run(ctx, params) {
    const page = await ctx.gateway.list(ctx.caller, params);
    if (!params.includeArtifacts) return page;
    return { ...page, tasks: page.tasks.map((t) => ({ ...t, artifacts: t.artifacts ?? [] })) };
  },
};

export const cancelTask: Unary<CancelTaskParams, Task> = {
  name: "cancelTask",
  streaming: false,
  run: (ctx, params) => ctx.gateway.cancel(ctx.caller, params),
};

/** SubscribeToTask: the task now, then its events (after the `Last-Event-ID`, when resuming). */
export const subscribe: Streaming<SubscribeToTaskParams> = {
  name: "subscribe",
  streaming: true,
  run: (ctx, params) => ctx.gateway.subscribe(ctx.caller, { ...params, after: ctx.lastEventId }),
};

export const setPushConfig: Unary<PushConfigParams, WirePushConfig> = {
  name: "setPushConfig",
  streaming: false,
  run: (ctx, params) => ctx.gateway.setPushConfig(ctx.caller, params),
};

export const getPushConfig: Unary<PushConfigParams, WirePushConfig> = {
  name: "getPushConfig",
  streaming: false,
  run: (ctx, params) => ctx.gateway.getPushConfig(ctx.caller, params),
};

export const listPushConfigs: Unary<PushConfigParams, WirePushConfig[]> = {
  name: "listPushConfigs",
  streaming: false,
  run: (ctx, params) => ctx.gateway.listPushConfigs(ctx.caller, params),
};

/** DeleteTaskPushNotificationConfig: answers null (JSON-RPC's `result`). */
export const deletePushConfig: Unary<PushConfigParams, null> = {
  name: "deletePushConfig",
  streaming: false,
  async run(ctx, params) {
    await ctx.gateway.deletePushConfig(ctx.caller, params);
    return null;
  },
};

/** The extended card this caller gets, in the card shape of `version`. */
export const extendedCard = (version: A2AVersion): Unary<unknown, Record<string, unknown>> => ({
  name: "extendedCard",
  streaming: false,
  async run(ctx) {
    const card = await ctx.extendedCard(version);
    if (!card)
      throw new UnsupportedOperationError(
        "this agent has no extended agent card (capabilities.extendedAgentCard is false)",
      );
    return card;
  },
});
