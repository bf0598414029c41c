/**
 * The agent's tasks as one caller reaches them through a face other than A2A (MCP, AG-UI): wire
 * JSON sends, follows, reads, cancels and lists on the task gateway, with the caller's identity,
 * budgets and trace taken from the request as for an A2A call (agent-request.ts). Access is
 * checked when the port opens and consent before each message, so such a caller meets the same
 * rules, the same anonymous isolation and the same task objects as an A2A one.
 */
import type { Context } from "hono";
import type { AgentDefinition } from "../agents/identity.ts";
import type { ListTasksPage } from "../gateway/list-tasks.ts";
import { checkMessageConsent } from "../privacy/consent.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import type { Message, StreamEvent, Task, TaskStateName } from "../protocol/wire.ts";
import { agentGateway, checkAccess, gatewayCaller } from "./agent-request.ts";

/** Which tasks {@link TaskPort.list} returns. */
export interface TaskQuery {
  contextId?: string | undefined;
  status?: TaskStateName | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/** The agent's tasks as one caller may reach them. */
export interface TaskPort {
  /** Sends `message` (a new task, or the task it names); the task's events as they happen. */
  send(message: Message): AsyncGenerator<StreamEvent, void, undefined>;
  /** The events of task `taskId` from its current state on. */
  follow(taskId: string): AsyncGenerator<StreamEvent, void, undefined>;
  get(taskId: string, historyLength?: number): Promise<Task>;
  cancel(taskId: string): Promise<Task>;
  list(query: TaskQuery): Promise<ListTasksPage>;
}

async function* events(
  source: AsyncGenerator<{ event: StreamEvent }, void>,
): AsyncGenerator<StreamEvent, void, undefined> {
  for await (const item of source) yield item.event;
}

/** The port of `agent` for the request's caller; a 403 when the caller may not use the agent. */
export function taskPort(c: Context<AppEnv>, agent: AgentDefinition): TaskPort {
  checkAccess(c, agent);
  c.set("agent", agent.name);
  const gateway = agentGateway(c, agent);
  const caller = gatewayCaller(c, "1.0");
  return {
    async *send(message) {
      await checkMessageConsent(c, message);
      yield* events(gateway.stream(caller, { message }));
    },
    follow: (taskId) => events(gateway.subscribe(caller, { id: taskId })),
    get: (taskId, historyLength) =>
      gateway.get(caller, {
        id: taskId,
        ...(historyLength === undefined ? {} : { historyLength }),
      }),
    cancel: (taskId) => gateway.cancel(caller, { id: taskId }),
    list: (query) =>
      gateway.list(caller, {
        ...(query.contextId ? { contextId: query.contextId } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.pageSize ? { pageSize: query.pageSize } : {}),
        ...(query.pageToken ? { pageToken: query.pageToken } : {}),
        historyLength: 1,
      }),
  };
}
