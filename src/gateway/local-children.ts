/**
 * Local sub-agents through the task gateway, like every other caller: a parent task is the caller
 * of its children (its owner, its budgets' counters and overrides, its trace, the `task` tool
 * call's span), and each call goes through the gateway of the child's agent: the send checks,
 * the task ids, the retries of a restarting object, ownership on the answer and the cancel. A
 * start carries what no face can set ({@link ChildOrigin}): the parent's lineage, and the tool
 * call whose child it makes, which names the child (a re-run of the call finds it). Only the
 * gateway's refusals (the A2A typed errors) become a failed start; anything else is thrown.
 */
import { A2AError, TaskNotCancelableError } from "@a2a-js/sdk/errors";
import { currentAgents } from "../agents/overrides.ts";
import { servedAgent } from "../agents/roster.ts";
import { loadConfig } from "../config/config.ts";
import type { SubagentCall } from "../loop/contracts.ts";
import { newId } from "../platform/ids.ts";
import { userCounters } from "../platform/object-names.ts";
import { budgetOf } from "../protocol/app-types.ts";
import type { Message, Part } from "../protocol/wire.ts";
import type {
  ChildTransport,
  LocalTransportFor,
  ParentCaller,
  ParentTask,
} from "../subagents/transport.ts";
import { currentSpan } from "../trace/current-span.ts";
import { durableGateway, type GatewayDeps } from "./durable-gateway.ts";
import { sendToTask } from "./send-task.ts";
import type { GatewayCaller } from "./task-gateway.ts";

/** The transport of a parent's local children: the task gateway of each child's agent. */
export const localChildren: LocalTransportFor = (env, parent): ChildTransport => ({
  start: (task, call) => startChild(env, task, call),
  answer: (childTaskId, parts, agent) => answerChild(env, parent, childTaskId, parts, agent),
  cancel: (childTaskId, agent) => cancelChild(env, parent, childTaskId, agent),
});

/**
 * The gateway's dependencies for the agent `name` (undefined: none): one served here, or for a
 * cancel any the registry holds (a child whose agent was switched off since it started still
 * ends with its parent).
 */
function gatewayDeps(env: Env, name: string, served = true): GatewayDeps | undefined {
  const definition = served ? servedAgent(env, name) : currentAgents().get(name);
  if (!definition) return undefined;
  const allowPrivateUrls = loadConfig(env).webFetchAllowPrivate;
  return { tasks: env.TASKS, db: env.DB, definition, allowPrivateUrls };
}

/** The parent as the gateway's caller; its span continues the `task` tool call's, if any. */
function parentAsCaller(parent: ParentCaller & Pick<ParentTask, "budget">): GatewayCaller {
  const span = currentSpan();
  return {
    owner: parent.owner,
    counters: parent.counters ?? userCounters(parent.owner),
    ...budgetOf(parent),
    traceId: parent.traceId,
    ...(span
      ? {
          traceParent: {
            parentSpanId: span.spanId,
            ...(span.traceState ? { traceState: span.traceState } : {}),
          },
        }
      : {}),
    protocol: "1.0",
  };
}

/** The gateway's refusal as a failed start; anything else goes on up. */
function refusal(error: unknown): { ok: false; error: string } {
  if (error instanceof A2AError) return { ok: false, error: error.message };
  throw error;
}

/** Starts (or, for a re-run of the same tool call, finds) the child task of `call`. */
async function startChild(
  env: Env,
  parent: ParentTask,
  call: SubagentCall,
): Promise<{ ok: true; childTaskId: string } | { ok: false; error: string }> {
  const deps = gatewayDeps(env, call.agent);
  if (!deps) return { ok: false, error: `the agent ${call.agent} is not served here` };
  const message: Message = {
    messageId: `subagent:${parent.taskId}:${call.callId}`,
    role: "ROLE_USER",
    parts: [{ text: call.prompt }],
    metadata: { subagent: { description: call.description } },
  };
  try {
    const sent = await sendToTask(
      {
        ...deps,
        agent: call.agent,
        caller: parentAsCaller(parent),
        child: { lineage: parent.lineage, callId: call.callId },
      },
      { message, configuration: { returnImmediately: true } },
      "wait",
    );
    if ("reply" in sent) return { ok: false, error: `${call.agent} answered without a task` };
    return { ok: true, childTaskId: sent.taskId };
  } catch (error) {
    return refusal(error);
  }
}

/** Passes a person's answer to a local child waiting for input. */
async function answerChild(
  env: Env,
  parent: ParentCaller,
  childTaskId: string,
  parts: Part[],
  agent: string,
): Promise<void> {
  const deps = gatewayDeps(env, agent);
  if (!deps) throw new Error(`the agent ${agent} is not served here`);
  const message: Message = { messageId: newId(), role: "ROLE_USER", parts, taskId: childTaskId };
  await durableGateway(deps).send(parentAsCaller(parent), {
    message,
    configuration: { returnImmediately: true },
  });
}

/** Cancels a local child; an already ended child is fine. */
async function cancelChild(
  env: Env,
  parent: ParentCaller,
  childTaskId: string,
  agent: string,
): Promise<void> {
  const deps = gatewayDeps(env, agent, false);
  if (!deps) throw new Error(`the agent ${agent} is not known here`);
  try {
    await durableGateway(deps).cancel(parentAsCaller(parent), { id: childTaskId });
  } catch (error) {
    if (!(error instanceof TaskNotCancelableError)) throw error;
  }
}
