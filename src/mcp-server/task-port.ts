/**
 * The one door of the MCP face into the agent's tasks: wire-typed (A2A v1.0 JSON) sends, reads,
 * cancels and lists, over the A2A request path in-process. The caller's identity, budgets and
 * trace come from the request as for an A2A call (a2a/agent-request.ts); access is checked when
 * the port opens and consent before each message, so an MCP caller meets the same rules, the same
 * anonymous isolation and the same task objects as an A2A one. Every MCP tool goes through here.
 */
import { ListTasksRequest, Task as SdkTask, SendMessageRequest, StreamResponse } from "@a2a-js/sdk";
import type { Context } from "hono";
import { agentEndpoint, checkAccess, handlerFor } from "../a2a/agent-request.ts";
import type { DurableRequestHandler } from "../a2a/request-handler.ts";
import type { AgentDefinition } from "../agents/identity.ts";
import { checkMessageConsent } from "../privacy/consent.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import type { Message, StreamEvent, Task, TaskStateName } from "../protocol/wire.ts";

/** Which tasks {@link TaskPort.list} returns. */
export interface TaskQuery {
  contextId?: string | undefined;
  status?: TaskStateName | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/** A page of tasks, newest first. */
export interface TaskPage {
  tasks: Task[];
  nextPageToken: string;
}

/** The agent's tasks as one caller may reach them. */
export interface TaskPort {
  /** Sends `message` (a new task, or the task it names); the task's events as they happen. */
  send(message: Message): AsyncGenerator<StreamEvent, void, undefined>;
  /** The events of task `taskId` from its current state on. */
  follow(taskId: string): AsyncGenerator<StreamEvent, void, undefined>;
  get(taskId: string, historyLength?: number): Promise<Task>;
  cancel(taskId: string): Promise<Task>;
  list(query: TaskQuery): Promise<TaskPage>;
}

const wireTask = (task: SdkTask) => SdkTask.toJSON(task) as unknown as Task;

async function* wireEvents(
  source: AsyncGenerator<StreamResponse, void, undefined>,
): AsyncGenerator<StreamEvent, void, undefined> {
  for await (const response of source) yield StreamResponse.toJSON(response) as StreamEvent;
}

class HandlerPort implements TaskPort {
  readonly c: Context<AppEnv>;
  readonly handler: DurableRequestHandler;

  constructor(c: Context<AppEnv>, handler: DurableRequestHandler) {
    this.c = c;
    this.handler = handler;
  }

  async *send(message: Message): AsyncGenerator<StreamEvent, void, undefined> {
    await checkMessageConsent(this.c, message as unknown as Record<string, unknown>);
    const request = SendMessageRequest.fromJSON({ message });
    yield* wireEvents(this.handler.sendMessageStream(request));
  }

  follow(taskId: string): AsyncGenerator<StreamEvent, void, undefined> {
    return wireEvents(this.handler.resubscribe({ id: taskId, tenant: "" }));
  }

  async get(taskId: string, historyLength?: number): Promise<Task> {
    return wireTask(
      await this.handler.getTask({
        id: taskId,
        tenant: "",
        ...(historyLength === undefined ? {} : { historyLength }),
      }),
    );
  }

  async cancel(taskId: string): Promise<Task> {
    return wireTask(await this.handler.cancelTask({ id: taskId, tenant: "", metadata: {} }));
  }

  async list(query: TaskQuery): Promise<TaskPage> {
    const page = await this.handler.listTasks(
      ListTasksRequest.fromJSON({
        ...(query.contextId ? { contextId: query.contextId } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.pageSize ? { pageSize: query.pageSize } : {}),
        ...(query.pageToken ? { pageToken: query.pageToken } : {}),
        historyLength: 1,
      }),
    );
    return { tasks: page.tasks.map(wireTask), nextPageToken: page.nextPageToken };
  }
}

/** The port of `agent` for the request's caller; a 403 when the caller may not use the agent. */
export async function taskPort(c: Context<AppEnv>, agent: AgentDefinition): Promise<TaskPort> {
  checkAccess(c, agent);
  return new HandlerPort(c, await handlerFor(c, agent, agentEndpoint(c, agent.name), "1.0"));
}
