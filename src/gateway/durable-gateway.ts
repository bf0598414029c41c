/**
 * The task gateway (task-gateway.ts) over task Durable Objects: each call goes to the object of
 * the task it names (a new message makes the task id and its object), ListTasks reads the D1
 * index. Wire JSON in and out, ProtoJSON-shaped (protocol/proto-json.ts); refusals become the
 * A2A typed errors, and a task object restarting mid-call is retried where that is safe.
 */
import { RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { ANONYMOUS_CALLER, anonymousOwner } from "../auth/anonymous.ts";
import { stubByName } from "../platform/object-stub.ts";
import { asLiveMessage } from "../protocol/live-message.ts";
import type { SendMessageParams } from "../protocol/params.ts";
import { protoMessage, protoTask } from "../protocol/proto-json.ts";
import type { SendResult, Task, WirePushConfig } from "../protocol/wire.ts";
import type { PushAnswer, PushCall } from "../push/push-calls.ts";
import { type PushConfig, toWireConfig } from "../push/push-config.ts";
import type { TaskResult } from "../task/rpc-types.ts";
import type { TaskObject } from "../task/task-object.ts";
import { callerEvents, generationOption, LONG_POLL_MAX_MS, type LongPoll } from "./generations.ts";
import { DEFAULT_PAGE_SIZE, type ListTasksPage, listTasks } from "./list-tasks.ts";
import { checkedPushConfig, type SendDefinition } from "./send-checks.ts";
import { sendToTask } from "./send-task.ts";
import { limitHistory, relayEvents, unwrap } from "./task-calls.ts";
import type { GatewayCaller, GatewayEvent, TaskGateway } from "./task-gateway.ts";

/** What the gateway of one agent needs. */
export interface GatewayDeps {
  tasks: DurableObjectNamespace<TaskObject>;
  db: D1Database;
  /** The agent's media types, messageId dedupe and program (see agents/identity.ts). */
  definition: SendDefinition;
  /** WEB_FETCH_ALLOW_PRIVATE: push URLs may name private hosts. */
  allowPrivateUrls: boolean;
  /** LONG_POLL_SECONDS in ms: the longest GetTask's `currentGeneration` holds (default 25 s). */
  longPollMs?: number;
}

/** The task objects of one agent, called with retries where a restart may cut a call. */
interface TaskObjects {
  deps: GatewayDeps;
  stub(taskId: string): DurableObjectStub<TaskObject>;
  /** The task's events after `after` (null: from its start). */
  subscribe(
    caller: GatewayCaller,
    taskId: string,
    after: number | null,
  ): Promise<TaskResult<ReadableStream<Uint8Array>>>;
  /** The events of `first`, resumed after the last one when a restart cuts it. */
  relay(
    caller: GatewayCaller,
    taskId: string,
    first: ReadableStream<Uint8Array>,
  ): AsyncGenerator<GatewayEvent, void>;
  /** The task (`generation`: with its generation; `hold`: a long poll, task/generation.ts). */
  read(
    caller: GatewayCaller,
    id: string,
    options?: { historyLength?: number; generation?: boolean; hold?: LongPoll },
  ): Promise<TaskResult<Task>>;
  /** A push config call to the task `taskId` names (a bad request when it names none). */
  push(taskId: string | undefined, call: PushCall): Promise<PushAnswer>;
}

/** The gateway of one agent over its task objects. */
export function durableGateway(deps: GatewayDeps): TaskGateway {
  const objects = taskObjects(deps);
  return { ...messageCalls(objects), ...taskCalls(objects), ...pushCalls(objects) };
}

/** The calls to the task objects of `deps`. */
function taskObjects(deps: GatewayDeps): TaskObjects {
  const stub = (taskId: string): DurableObjectStub<TaskObject> => stubByName(deps.tasks, taskId);
  const subscribe: TaskObjects["subscribe"] = (caller, taskId, after) =>
    // The RPC stub's inferred type splits the result union; the task object returns exactly this.
    stub(taskId).subscribe({ owner: caller.owner, after }) as Promise<
      TaskResult<ReadableStream<Uint8Array>>
    >;
  return {
    deps,
    stub,
    subscribe,
    relay: (caller, taskId, first) =>
      relayEvents(first, (after) => subscribe(caller, taskId, after)),
    read: (caller, id, { historyLength, generation, hold } = {}) =>
      // As for subscribe: the stub's type splits the union the task object returns.
      stub(id).get({
        owner: caller.owner,
        ...historyOption(historyLength),
        ...(generation ? { generation } : {}),
        ...(hold ? { hold } : {}),
      }) as Promise<TaskResult<Task>>,
    async push(taskId, call) {
      if (!taskId) throw new RequestMalformedError("taskId is required");
      // As for subscribe: the stub's type splits the union the task object returns.
      return unwrap(await (stub(taskId).push(call) as Promise<TaskResult<PushAnswer>>));
    },
  };
}

/** The `historyLength` a call passes on, when it names one. */
const historyOption = (historyLength: number | undefined) =>
  historyLength === undefined ? {} : { historyLength };

/** SendMessage, SendStreamingMessage and SendLiveMessage. */
function messageCalls(objects: TaskObjects): Pick<TaskGateway, "send" | "stream" | "live"> {
  const { deps } = objects;
  const send = (caller: GatewayCaller, params: SendMessageParams, mode: "stream" | "wait") =>
    sendToTask({ ...deps, agent: deps.definition.name, caller }, params, mode);
  return {
    async send(caller, params) {
      const sent = await send(caller, params, "wait");
      if ("reply" in sent) return { message: protoMessage(sent.reply) } satisfies SendResult;
      const { taskId, outcome } = sent;
      const historyLength = params.configuration?.historyLength;
      // A new task answered once settled (one call), a live message at once (queued for the
      // working task), or the task as the call left it.
      if (params.configuration?.returnImmediately || sent.settled || outcome.queued) {
        const task =
          historyLength === undefined ? outcome.task : limitHistory(outcome.task, historyLength);
        return { task: protoTask(task) };
      }
      const settled = await objects.stub(taskId).waitSettled({
        owner: caller.owner,
        ...historyOption(historyLength),
        ...generationOption(caller),
      });
      return { task: protoTask(unwrap(settled)) };
    },

    async *stream(caller, params): AsyncGenerator<GatewayEvent, void> {
      const sent = await send(caller, params, "stream");
      if ("reply" in sent) {
        // A Message instead of a Task: the stream is that one message (spec 1.0.1 §3.1.2).
        yield { seq: null, event: { message: protoMessage(sent.reply) } };
        return;
      }
      if (!sent.outcome.stream) throw new Error("task object returned no stream");
      yield* callerEvents(caller, objects.relay(caller, sent.taskId, sent.outcome.stream));
    },

    async live(caller, params) {
      const message = asLiveMessage(params.message);
      const request = { message, ...(params.metadata ? { metadata: params.metadata } : {}) };
      const sent = await send(
        caller,
        { ...request, configuration: { returnImmediately: true } },
        "wait",
      );
      // A message naming a task never gets a program's reply (send-checks.ts).
      if ("reply" in sent) throw new Error("a live message got a program's reply");
      return protoTask(sent.outcome.task);
    },
  };
}

/** GetTask, CancelTask, SubscribeToTask and ListTasks. */
function taskCalls(
  objects: TaskObjects,
): Pick<TaskGateway, "get" | "cancel" | "subscribe" | "list"> {
  const { deps } = objects;
  return {
    async get(caller, params) {
      const { id, historyLength, currentGeneration } = params;
      const generation = caller.generations === true;
      // A long poll (task generations): the task object holds it until the task moves.
      const ms = deps.longPollMs ?? LONG_POLL_MAX_MS;
      const hold = generation && currentGeneration !== undefined;
      const options = {
        historyLength,
        generation,
        ...(hold ? { hold: { after: currentGeneration, ms } } : {}),
      };
      return protoTask(unwrap(await objects.read(caller, id, options)));
    },

    async cancel(caller, params) {
      const cancel = { owner: caller.owner, ...generationOption(caller) };
      const result = await objects.stub(params.id).cancel(cancel);
      return protoTask(unwrap(result));
    },

    async *subscribe(caller, params): AsyncGenerator<GatewayEvent, void> {
      const after = params.after ?? null;
      const result = await objects.subscribe(caller, params.id, after);
      yield* callerEvents(caller, objects.relay(caller, params.id, unwrap(result)));
    },

    async list(caller, params): Promise<ListTasksPage> {
      const anonymous = caller.owner === ANONYMOUS_CALLER;
      // An anonymous caller lists one conversation, the one it names; naming none lists nothing.
      if (anonymous && !params.contextId)
        return {
          tasks: [],
          nextPageToken: "",
          pageSize: params.pageSize ?? DEFAULT_PAGE_SIZE,
          totalSize: 0,
        };
      const owner =
        anonymous && params.contextId ? await anonymousOwner(params.contextId) : caller.owner;
      const scope = { owner, agent: deps.definition.name };
      const page = await listTasks(deps.db, scope, params, async (id, historyLength) => {
        const result = await objects.read(caller, id, { historyLength });
        return result.ok ? result.value : null;
      });
      return { ...page, tasks: page.tasks.map(protoTask) };
    },
  };
}

/** The config a push call answered with, in wire form; none is a not-found. */
function wireConfig(taskId: string, config: PushConfig | undefined): WirePushConfig {
  if (!config) throw new TaskNotFoundError("no such push notification config");
  return toWireConfig(taskId, config);
}

/** The push notification config calls (a task id is required; `push` refuses a call without). */
function pushCalls(
  objects: TaskObjects,
): Pick<TaskGateway, "setPushConfig" | "getPushConfig" | "listPushConfigs" | "deletePushConfig"> {
  const { deps, push } = objects;
  return {
    async setPushConfig(caller, params) {
      const config = checkedPushConfig(params, caller.protocol, deps.allowPrivateUrls);
      const answer = await push(params.taskId, { op: "create", owner: caller.owner, config });
      return wireConfig(params.taskId ?? "", answer.configs[0]);
    },

    // Over v0.3, as the reference SDKs answer it, a config set without an id is the task's default
    // (stored under the task's id): a get whose id names no config finds it (the v0.3 kit sets
    // one without an id, then asks for "default").
    async getPushConfig(caller, params) {
      const id = params.id ?? "";
      const taskId = params.taskId ?? "";
      const get = (configId: string) =>
        push(params.taskId, { op: "get", owner: caller.owner, id: configId });
      let answer: PushAnswer;
      try {
        answer = await get(id);
      } catch (error) {
        const fallback = caller.protocol === "0.3" && id !== "" && id !== taskId;
        if (!(error instanceof TaskNotFoundError) || !fallback) throw error;
        answer = await get(taskId);
      }
      return wireConfig(taskId, answer.configs[0]);
    },

    async listPushConfigs(caller, params) {
      const answer = await push(params.taskId, { op: "list", owner: caller.owner });
      return answer.configs.map((c) => wireConfig(params.taskId ?? "", c));
    },

    async deletePushConfig(caller, params) {
      const id = params.id ?? "";
      await push(params.taskId, { op: "delete", owner: caller.owner, id });
    },
  };
}
