/**
 * What the A2A request handler (request-handler.ts) needs for one request: the task objects, the
 * index, the agent it serves, and who is calling with what. Built per request by a2a/routes.ts
 * and by triggers/start-task.ts.
 */
import type { UserBudget } from "../protocol/app-types.ts";
import type { PushProtocol } from "../push/push-config.ts";
import type { TaskObject } from "../task/task-object.ts";
import type { SendDefinition } from "./send-checks.ts";

/** What the handler needs for one request. */
export interface HandlerDeps {
  tasks: DurableObjectNamespace<TaskObject>;
  db: D1Database;
  agent: string;
  /** The agent's media types, messageId dedupe and program (see agents/identity.ts). */
  definition: SendDefinition;
  card: Record<string, unknown>;
  /**
   * The caller's owner claim: a user's id, or `ANONYMOUS_CALLER`, whose new tasks belong to
   * the conversation they name (see auth/anonymous.ts).
   */
  owner: string;
  /** The user object counting the caller's budgets (`user:<id>`, `ip:<address>`). */
  counters: string;
  /** The caller's budget overrides as its credential found them (absent: the task looks them up). */
  budget?: UserBudget | null;
  traceId: string;
  /** The caller's span (from a valid `traceparent`): the parent of the task's span. */
  traceParent?: { parentSpanId: string; traceState?: string };
  /** The SSE `Last-Event-ID` of a reconnecting subscriber, if any. */
  lastEventId: number | null;
  /** The protocol version of the request (push configs notify in its shape). */
  protocol: PushProtocol;
  /** WEB_FETCH_ALLOW_PRIVATE: push URLs may name private hosts. */
  allowPrivateUrls: boolean;
}
