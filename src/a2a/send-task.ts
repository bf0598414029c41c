/**
 * A send, from the request handler to the task object: checks the message (media types, an
 * inline push config), lets an agent program answer with a Message instead, then creates the
 * task (or continues the one the message names). A blocking send is one call: the task object
 * answers once the task settles.
 */

import { ANONYMOUS_CALLER, anonymousOwner, newContextId } from "../auth/anonymous.ts";
import { newId, taskIdFor } from "../platform/ids.ts";
import { stubByName } from "../platform/object-stub.ts";
import { budgetOf } from "../protocol/app-types.ts";
import type { Message } from "../protocol/wire.ts";
import type { SendOutcome } from "../task/rpc-types.ts";
import type { HandlerDeps } from "./handler-deps.ts";
import {
  checkedPushConfig,
  checkMediaTypes,
  programReply,
  type WireSendRequest,
} from "./send-checks.ts";
import { callerOf } from "./subagent-caller.ts";
import { unwrap, withRetry } from "./task-rpc.ts";

/** What a send made: the task and the object's answer (`settled` when it waited), or a reply. */
export type Sent =
  | { taskId: string; outcome: SendOutcome; request: WireSendRequest; settled: boolean }
  | { reply: Message };

export async function sendToTask(
  deps: HandlerDeps,
  request: WireSendRequest,
  mode: "stream" | "wait",
): Promise<Sent> {
  const stream = mode === "stream";
  const { message } = request;
  const { definition, protocol, allowPrivateUrls } = deps;
  checkMediaTypes(definition, request);
  const reply = programReply(definition, message);
  if (reply) return { reply };
  const inline = request.configuration?.taskPushNotificationConfig;
  const pushConfig = inline ? checkedPushConfig(inline, protocol, allowPrivateUrls) : undefined;
  if (message.taskId) {
    const taskId = message.taskId;
    const followUp = { owner: deps.owner, message, ...(pushConfig ? { pushConfig } : {}) };
    const result = await stubByName(deps.tasks, taskId).followUp(
      { ...followUp, ...budgetOf(deps) },
      { stream },
    );
    return { taskId, outcome: unwrap(result), request, settled: false };
  }
  const contextId = message.contextId ?? newContextId();
  // An anonymous caller's new tasks belong to the conversation: their owner derives from the
  // contextId, so its task ids are as unguessable as that.
  const owner = deps.owner === ANONYMOUS_CALLER ? await anonymousOwner(contextId) : deps.owner;
  // The task id is derived from (owner, agent, messageId): a resent message, even a concurrent
  // one, reaches the same object, whose create() returns the task it already made (unless the
  // agent turns that off: then each message is a new task).
  const taskId = definition.dedupeMessages
    ? await taskIdFor(owner, deps.agent, message.messageId)
    : newId();
  const caller = callerOf(message);
  const input = {
    taskId,
    contextId,
    freshContext: message.contextId === undefined,
    agent: deps.agent,
    owner,
    counters: deps.counters,
    ...budgetOf(deps),
    traceId: deps.traceId,
    ...(deps.traceParent ? { traceParent: deps.traceParent } : {}),
    message,
    ...(request.metadata ? { requestMetadata: request.metadata } : {}),
    ...(caller ? { remoteParent: caller } : {}),
    ...(pushConfig ? { pushConfig } : {}),
  };
  const wait = mode === "wait" && !request.configuration?.returnImmediately;
  const result = await withRetry(() =>
    stubByName(deps.tasks, taskId).create(input, { stream, wait }),
  );
  return { taskId, outcome: unwrap(result), request, settled: wait };
}
