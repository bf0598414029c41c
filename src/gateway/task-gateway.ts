/**
 * The task gateway: the one way into tasks for every face of an agent (A2A JSON-RPC v1.0 and
 * v0.3, HTTP+JSON v1.0 and v0.3, MCP, AG-UI, webhooks and schedules) and for a task's local
 * sub-agents (local-children.ts, whose starts alone carry a lineage). Parameters and
 * answers are A2A v1.0 wire JSON (protocol/wire.ts), validated once by the face that received
 * them (a2a/methods.ts); a face translates its own dialect to and from these shapes and nothing
 * else. Who calls travels with each call ({@link GatewayCaller}); the agent is fixed when the
 * gateway is made (durable-gateway.ts). Failures are thrown as the A2A typed errors
 * (`@a2a-js/sdk/errors`), which a face turns into its own error shape (edge/errors.ts). Types only.
 */

import type { UserBudget } from "../protocol/app-types.ts";
import type { DelegatedCaller } from "../protocol/delegated-caller.ts";
import type {
  CancelTaskParams,
  GetTaskParams,
  ListTasksParams,
  LiveMessageParams,
  PushConfigParams,
  SendMessageParams,
  SubscribeToTaskParams,
} from "../protocol/params.ts";
import type { SendResult, StreamEvent, Task, WirePushConfig } from "../protocol/wire.ts";
import type { PushProtocol } from "../push/push-config.ts";
import type { ListTasksPage } from "./list-tasks.ts";

/** Who is calling, as the gateway needs it (built from the request's principal by the face). */
export interface GatewayCaller {
  /**
   * The owner claim: a user's id, or `ANONYMOUS_CALLER`, whose new tasks belong to the
   * conversation they name (auth/anonymous.ts).
   */
  owner: string;
  /** The user object counting the caller's budgets (`user:<id>`, `ip:<address>`). */
  counters: string;
  /** Budget overrides as the caller's credential found them (absent: the task looks them up). */
  budget?: UserBudget | null;
  /** For a delegated caller: who asks for whom (recorded in a new task's metadata). */
  delegation?: DelegatedCaller;
  traceId: string;
  /** The caller's span (from a valid `traceparent`): the parent of the task's span. */
  traceParent?: { parentSpanId: string; traceState?: string };
  /** The protocol generation the caller speaks: push configs it creates notify in its shape. */
  protocol: PushProtocol;
  /**
   * The public base URL the caller reached (PUBLIC_URL, else the request's origin): a new task
   * links the files it attaches to the files API there (task/runtime/file-artifact.ts).
   */
  baseUrl?: string;
  /**
   * The caller activated task generations (a2a/extension-activation.ts): tasks and events carry
   * `generation`, GetTask's `currentGeneration` holds, a send's `ifGenerationMatch` is checked.
   */
  generations?: boolean;
}

/**
 * One event of a stream with its position in the task's event log: the SSE `id` a client
 * resumes from. `seq` is null for an event that is not in a log (a Message answer).
 */
export interface GatewayEvent {
  seq: number | null;
  event: StreamEvent;
}

/** Parameters of SubscribeToTask, with the `Last-Event-ID` of a client that resumes. */
export type SubscribeParams = SubscribeToTaskParams & { after?: number | null };

/** The task operations every face calls. */
export interface TaskGateway {
  /** SendMessage: creates a task (or continues the one the message names) and, unless asked to
   * return at once, answers when it settles. */
  send(caller: GatewayCaller, params: SendMessageParams): Promise<SendResult>;
  /** SendStreamingMessage: the task's events until it settles (or the message answer alone). */
  stream(caller: GatewayCaller, params: SendMessageParams): AsyncGenerator<GatewayEvent, void>;
  /**
   * SendLiveMessage (the live-messages extension): a message for the task it names, queued for
   * its next step when it is working (else taken as any follow-up); answers at once with the task.
   */
  live(caller: GatewayCaller, params: LiveMessageParams): Promise<Task>;
  get(caller: GatewayCaller, params: GetTaskParams): Promise<Task>;
  /** ListTasks: one page of the caller's tasks of this agent. */
  list(caller: GatewayCaller, params: ListTasksParams): Promise<ListTasksPage>;
  cancel(caller: GatewayCaller, params: CancelTaskParams): Promise<Task>;
  /** SubscribeToTask: the task now, then its events (after `after`, when resuming). */
  subscribe(caller: GatewayCaller, params: SubscribeParams): AsyncGenerator<GatewayEvent, void>;
  setPushConfig(caller: GatewayCaller, params: PushConfigParams): Promise<WirePushConfig>;
  getPushConfig(caller: GatewayCaller, params: PushConfigParams): Promise<WirePushConfig>;
  listPushConfigs(caller: GatewayCaller, params: PushConfigParams): Promise<WirePushConfig[]>;
  deletePushConfig(caller: GatewayCaller, params: PushConfigParams): Promise<void>;
}
