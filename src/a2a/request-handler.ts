/**
 * The A2A request handler behind every transport: the @a2a-js/sdk `A2ARequestHandler` contract,
 * implemented by routing each call to the Durable Object of the task it names (a new message
 * creates the task id and its object). Task-object refusals become the SDK's typed A2A errors;
 * a task object restarting mid-call is retried where that is safe.
 */

import {
  AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  type ListTasksResponse,
  Message as SdkMessage,
  Task as SdkTask,
  SendMessageRequest,
  StreamResponse,
  type SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import {
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { ANONYMOUS_CALLER, anonymousOwner } from "../auth/anonymous.ts";
import { stubByName } from "../platform/object-stub.ts";
import type { Task } from "../protocol/wire.ts";
import type { PushAnswer, PushCall } from "../push/push-calls.ts";
import { type PushConfig, toWireConfig } from "../push/push-config.ts";
import type { TaskResult } from "../task/rpc-types.ts";
import type { TaskObject } from "../task/task-object.ts";
import type { HandlerDeps } from "./handler-deps.ts";
import { DEFAULT_PAGE_SIZE, listTasks } from "./list-tasks.ts";
import { ListTasksParams } from "./params.ts";
import { checkedPushConfig, type WireSendRequest } from "./send-checks.ts";
import { type Sent, sendToTask } from "./send-task.ts";
import { limitHistory, relayEvents, unwrap, withRetry } from "./task-rpc.ts";

const toSdkTask = (task: Task) => SdkTask.fromJSON(task);

/** Routes A2A calls to task Durable Objects. One instance per request. */
export class DurableRequestHandler implements A2ARequestHandler {
  readonly #deps: HandlerDeps;
  /** Sequence number of the event most recently yielded by a stream (its SSE id). */
  lastSeq: number | null = null;

  constructor(deps: HandlerDeps) {
    this.#deps = deps;
  }

  get #anonymous(): boolean {
    return this.#deps.owner === ANONYMOUS_CALLER;
  }

  /** Who owns what the caller does in conversation `contextId`: itself, or that conversation. */
  async #ownerIn(contextId: string | undefined): Promise<string> {
    if (!this.#anonymous) return this.#deps.owner;
    if (contextId === undefined) throw new Error("an anonymous caller's owner needs a contextId");
    return anonymousOwner(contextId);
  }

  #stub(taskId: string): DurableObjectStub<TaskObject> {
    return stubByName(this.#deps.tasks, taskId);
  }

  #subscribe(
    taskId: string,
    after: number | null,
  ): Promise<TaskResult<ReadableStream<Uint8Array>>> {
    // The RPC stub's inferred type splits the result union; the task object returns exactly this.
    return this.#stub(taskId).subscribe({ owner: this.#deps.owner, after }) as Promise<
      TaskResult<ReadableStream<Uint8Array>>
    >;
  }

  async getAgentCard(): Promise<AgentCard> {
    return AgentCard.fromJSON(this.#deps.card);
  }

  /** The extended card as this caller may see it (see extended-card.ts). */
  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    if (!this.#deps.extendedCard)
      throw new UnsupportedOperationError(
        "this agent has no extended agent card (capabilities.extendedAgentCard is false)",
      );
    return AgentCard.fromJSON(this.#deps.extendedCard);
  }

  async sendMessage(params: SendMessageRequest): Promise<SdkMessage | SdkTask> {
    const sent = await this.#send(params, "wait");
    if ("reply" in sent) return SdkMessage.fromJSON(sent.reply);
    const { taskId, outcome, request } = sent;
    const historyLength = request.configuration?.historyLength;
    // A new task answered once settled (one call), or the task as the call left it.
    if (request.configuration?.returnImmediately || sent.settled) {
      return toSdkTask(
        historyLength === undefined ? outcome.task : limitHistory(outcome.task, historyLength),
      );
    }
    const settled = await withRetry(() =>
      this.#stub(taskId).waitSettled({
        owner: this.#deps.owner,
        ...(historyLength === undefined ? {} : { historyLength }),
      }),
    );
    return toSdkTask(unwrap(settled));
  }

  async *sendMessageStream(
    params: SendMessageRequest,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const sent = await this.#send(params, "stream");
    if ("reply" in sent) {
      // A Message instead of a Task: the stream is that one message (spec 1.0.1 §3.1.2).
      yield StreamResponse.fromJSON({ message: sent.reply });
      return;
    }
    const { taskId, outcome } = sent;
    if (!outcome.stream) throw new Error("task object returned no stream");
    yield* this.#relay(taskId, outcome.stream);
  }

  async getTask(params: GetTaskRequest): Promise<SdkTask> {
    const historyLength = params.historyLength;
    const result = await withRetry(() =>
      this.#stub(params.id).get({
        owner: this.#deps.owner,
        ...(historyLength === undefined ? {} : { historyLength }),
      }),
    );
    return toSdkTask(unwrap(result));
  }

  async cancelTask(params: CancelTaskRequest): Promise<SdkTask> {
    const result = await withRetry(() => this.#stub(params.id).cancel({ owner: this.#deps.owner }));
    return toSdkTask(unwrap(result));
  }

  async *resubscribe(
    params: SubscribeToTaskRequest,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const result = await withRetry(() => this.#subscribe(params.id, this.#deps.lastEventId));
    yield* this.#relay(params.id, unwrap(result));
  }

  async listTasks(params: ListTasksRequest): Promise<ListTasksResponse> {
    const input = ListTasksParams.parse(ListTasksRequest.toJSON(params));
    // An anonymous caller lists one conversation, the one it names; naming none lists nothing.
    if (this.#anonymous && !input.contextId)
      return {
        tasks: [],
        nextPageToken: "",
        pageSize: input.pageSize ?? DEFAULT_PAGE_SIZE,
        totalSize: 0,
      };
    const page = await listTasks(
      this.#deps.db,
      { owner: await this.#ownerIn(input.contextId), agent: this.#deps.agent },
      input,
      async (id, historyLength) => {
        const result = (await withRetry(() =>
          this.#stub(id).get({
            owner: this.#deps.owner,
            ...(historyLength === undefined ? {} : { historyLength }),
          }),
        )) as TaskResult<Task>;
        return result.ok ? result.value : null;
      },
    );
    return { ...page, tasks: page.tasks.map(toSdkTask) };
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    const config = checkedPushConfig(params, this.#deps.protocol, this.#deps.allowPrivateUrls);
    const answer = await this.#push(params.taskId, {
      op: "create",
      owner: this.#deps.owner,
      config,
    });
    return this.#wireConfig(params.taskId, answer.configs[0]);
  }

  /**
   * A config by its id. Over v0.3, as the reference SDKs answer it, a config set without an id
   * is the task's default (stored under the task's id): a get whose id names no config finds it
   * (the v0.3 kit sets one without an id, then asks for "default").
   */
  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    const get = (id: string) =>
      this.#push(params.taskId, { op: "get", owner: this.#deps.owner, id });
    let answer: PushAnswer;
    try {
      answer = await get(params.id);
    } catch (error) {
      const fallback =
        this.#deps.protocol === "0.3" && params.id !== "" && params.id !== params.taskId;
      if (!(error instanceof TaskNotFoundError) || !fallback) throw error;
      answer = await get(params.taskId);
    }
    return this.#wireConfig(params.taskId, answer.configs[0]);
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const answer = await this.#push(params.taskId, { op: "list", owner: this.#deps.owner });
    return {
      configs: answer.configs.map((c) => this.#wireConfig(params.taskId, c)),
      nextPageToken: "",
    };
  }

  async deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
  ): Promise<void> {
    await this.#push(params.taskId, { op: "delete", owner: this.#deps.owner, id: params.id });
  }

  async #push(taskId: string, call: PushCall): Promise<PushAnswer> {
    if (!taskId) throw new RequestMalformedError("taskId is required");
    const call_ = () => this.#stub(taskId).push(call) as Promise<TaskResult<PushAnswer>>;
    return unwrap(await withRetry(call_));
  }

  #wireConfig(taskId: string, config: PushConfig | undefined): TaskPushNotificationConfig {
    if (!config) throw new TaskNotFoundError("no such push notification config");
    return TaskPushNotificationConfig.fromJSON(toWireConfig(taskId, config));
  }

  /** Checks a send, then creates the task (or continues the one it names): send-task.ts. */
  #send(params: SendMessageRequest, mode: "stream" | "wait"): Promise<Sent> {
    return sendToTask(this.#deps, SendMessageRequest.toJSON(params) as WireSendRequest, mode);
  }

  /** Relays a task object's event stream, keeping {@link lastSeq}. */
  #relay(taskId: string, first: ReadableStream<Uint8Array>) {
    return relayEvents(
      first,
      (after) => this.#subscribe(taskId, after),
      (seq) => {
        this.lastSeq = seq;
      },
    );
  }
}
