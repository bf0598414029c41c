/**
 * A send, from the task gateway to the task object: checks the message (media types, an
 * inline push config), lets an agent program answer with a Message instead, then creates the
 * task (or continues the one the message names; one that lists the live-messages extension is
 * queued for a working task: protocol/live-message.ts). A blocking send is one call: the task
 * object answers once the task settles. A local sub-agent's start (local-children.ts) also carries
 * its {@link ChildOrigin}, which no face can set: the child's lineage, and an id and conversation
 * of its own derived from the parent's tool call.
 */

import { ANONYMOUS_CALLER, anonymousOwner, newContextId } from "../auth/anonymous.ts";
import { contextIdFor, firstTaskOf } from "../conversations/join.ts";
import { childTaskIdFor, newId, taskIdFor } from "../platform/ids.ts";
import { stubByName } from "../platform/object-stub.ts";
import { budgetOf } from "../protocol/app-types.ts";
import { isLiveMessage } from "../protocol/live-message.ts";
import type { Message } from "../protocol/wire.ts";
import type { Lineage } from "../subagents/transport.ts";
import type { SendOutcome } from "../task/rpc-types.ts";
import type { TaskObject } from "../task/task-object.ts";
import { generationOption } from "./generations.ts";
import {
  checkedPushConfig,
  checkMediaTypes,
  programReply,
  type SendDefinition,
  type WireSendRequest,
} from "./send-checks.ts";
import { callerOf } from "./subagent-caller.ts";
import { unwrap } from "./task-calls.ts";
import type { GatewayCaller } from "./task-gateway.ts";

/** What a send needs: the agent's task objects and definition, and who sends. */
export interface SendDeps {
  tasks: DurableObjectNamespace<TaskObject>;
  agent: string;
  definition: SendDefinition;
  allowPrivateUrls: boolean;
  caller: GatewayCaller;
  /** Set only for a local sub-agent's start (local-children.ts); never from a face's request. */
  child?: ChildOrigin;
}

/** Where a local sub-agent's task comes from: its parent's lineage and `task` tool call. */
export interface ChildOrigin {
  lineage: Lineage;
  /** The parent's tool call: with the parent task, it names the child (childTaskIdFor). */
  callId: string;
}

/** What a send made: the task and the object's answer (`settled` when it waited), or a reply. */
export type Sent =
  | { taskId: string; outcome: SendOutcome; request: WireSendRequest; settled: boolean }
  | { reply: Message };

/** Checks a send, then creates the task or continues the one the message names. */
export async function sendToTask(
  deps: SendDeps,
  request: WireSendRequest,
  mode: "stream" | "wait",
): Promise<Sent> {
  const stream = mode === "stream";
  const { message } = request;
  const { definition, allowPrivateUrls, caller: who } = deps;
  checkMediaTypes(definition, request);
  const reply = programReply(definition, message);
  if (reply) return { reply };
  const inline = request.configuration?.taskPushNotificationConfig;
  const pushConfig = inline ? checkedPushConfig(inline, who.protocol, allowPrivateUrls) : undefined;
  if (message.taskId) {
    const taskId = message.taskId;
    const live = isLiveMessage(message);
    const followUp = {
      owner: who.owner,
      message,
      ...(pushConfig ? { pushConfig } : {}),
      ...(live ? { live } : {}),
    };
    const result = await stubByName(deps.tasks, taskId).followUp(
      { ...followUp, ...budgetOf(who), ...generationMatch(who, request) },
      { stream, ...generationOption(who) },
    );
    return { taskId, outcome: unwrap(result), request, settled: false };
  }
  const { contextId, owner, taskId } = await newTaskIds(deps, message);
  const caller = callerOf(message);
  const input = {
    taskId,
    contextId,
    freshContext: !deps.child && message.contextId === undefined,
    agent: deps.agent,
    owner,
    counters: who.counters,
    ...budgetOf(who),
    traceId: who.traceId,
    ...(who.traceParent ? { traceParent: who.traceParent } : {}),
    message,
    ...(request.metadata ? { requestMetadata: request.metadata } : {}),
    ...(caller ? { remoteParent: caller } : {}),
    ...(deps.child ? { parent: deps.child.lineage } : {}),
    ...(who.delegation ? { delegation: who.delegation } : {}),
    ...(pushConfig ? { pushConfig } : {}),
    ...(who.baseUrl ? { baseUrl: who.baseUrl } : {}),
  };
  const wait = mode === "wait" && !request.configuration?.returnImmediately;
  // Retried by the bindings on a transient failure: the task id is create's idempotency key (a
  // retried create gets the task the first attempt made).
  const result = await stubByName(deps.tasks, taskId).create(input, {
    stream,
    wait,
    ...generationOption(who),
  });
  return { taskId, outcome: unwrap(result), request, settled: wait };
}

/** The send's `ifGenerationMatch`, for a caller that activated task generations. */
function generationMatch(who: GatewayCaller, request: WireSendRequest) {
  const expected = request.configuration?.ifGenerationMatch;
  return who.generations && expected !== undefined ? { ifGenerationMatch: expected } : {};
}

/**
 * The new task's conversation, owner and id. A local sub-agent's task is its parent's owner's, in
 * a conversation of its own, under an id its parent's tool call derives. An anonymous caller's
 * tasks belong to the conversation: their owner derives from the contextId, so its task ids are
 * as unguessable as that. A task id is derived from (owner, agent, messageId): a resent message,
 * even a concurrent one, reaches the same object, whose create() returns the task it already made
 * (unless the agent turns that off: then each message is a new task). A conversation the server
 * opens is named after its first task (`contextIdFor`), so the conversation's object, made only
 * when a second task joins, can ask that task for its turns; an anonymous one's first task is
 * named after the new contextId instead (its owner, and so any derived id, needs the contextId
 * first).
 */
async function newTaskIds(
  deps: SendDeps,
  message: Message,
): Promise<{ contextId: string; owner: string; taskId: string }> {
  const who = deps.caller;
  if (deps.child) {
    const { lineage, callId } = deps.child;
    const taskId = await childTaskIdFor(who.owner, deps.agent, lineage.parentTaskId, callId);
    return { contextId: `sub-${taskId}`, owner: who.owner, taskId };
  }
  const anonymous = who.owner === ANONYMOUS_CALLER;
  const derived = (owner: string) =>
    deps.definition.dedupeMessages ? taskIdFor(owner, deps.agent, message.messageId) : newId();
  if (message.contextId === undefined) {
    if (anonymous) {
      const contextId = newContextId();
      // A new context id is 32 hex digits, so it names its first task.
      const taskId = firstTaskOf(contextId) as string;
      return { contextId, owner: await anonymousOwner(contextId), taskId };
    }
    const taskId = await derived(who.owner);
    return { contextId: contextIdFor(taskId), owner: who.owner, taskId };
  }
  const contextId = message.contextId;
  const owner = anonymous ? await anonymousOwner(contextId) : who.owner;
  return { contextId, owner, taskId: await derived(owner) };
}
