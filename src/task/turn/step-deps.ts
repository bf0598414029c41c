/**
 * What a loop step gets from its turn: the dependencies of loop/agent-loop.ts's `runStep`
 * (`StepDeps`) bound to the task's stores, with what comes from outside the task object: the
 * model client, the token budget gate (budget-gate.ts), the tool calls' spans, the run_code
 * sandbox (turn-resources.ts), and the task's artifacts for the files its tools attach.
 */
import { defaultHooks } from "../../hooks/index.ts";
import type { HarnessEvent, ToolContext } from "../../loop/contracts.ts";
import type { StepDeps, StepLimits } from "../../loop/step-types.ts";
import { modelClient } from "../../model/client.ts";
import { streamTurn } from "../../model/stream-turn.ts";
import { userCounters } from "../../platform/object-names.ts";
import { runTool as inToolSpan } from "../../trace/current-span.ts";
import { taskTraceOf } from "../../trace/task-trace.ts";
import { attachFile } from "../runtime/file-artifact.ts";
import { budgetGate } from "./budget-gate.ts";
import { requestKeeper } from "./request-keeper.ts";
import type { Turn } from "./turn.ts";
import { codeSandboxFor, toolGrants } from "./turn-resources.ts";

/** The dependencies of one loop step (loop/agent-loop.ts `runStep`), bound to `turn`'s task. */
export function stepDeps(turn: Turn): StepDeps {
  const { env, config, task, record, agent, signal } = turn;
  const emit = (event: HarnessEvent) => task.emitHarnessEvent(event);
  return {
    agent,
    system: turn.system,
    limits: stepLimits(turn),
    signal,
    tools: turn.tools,
    toolContext: toolContext(turn, emit),
    hooks: defaultHooks(),
    hookContext: {
      taskId: record.id,
      agent: agent.name,
      state: task.hookState,
      config,
      tools: turn.tools.names(),
      requireApproval: agent.tools.requireApproval,
      emit,
    },
    callModel: (params, onText) =>
      streamTurn(modelClient(config, requestKeeper(turn, "turn")), params, {
        idleTimeoutMs: config.modelIdleTimeoutMs,
        signal,
        onText,
      }),
    loadConversation: () => task.conversation.load(),
    appendConversation: (message, contextSeq) => task.conversation.append(message, contextSeq),
    pendingCalls: () => task.pending.get(),
    setPendingCalls: (pending) => task.pending.set(pending),
    journal: task.journal,
    loopState: () => task.loopState.get(),
    patchLoopState: (changes) => void task.loopState.patch(changes),
    emitAnswer: answerWriter(turn),
    transaction: (fn) => task.unit.run(fn),
    recordModelCall: (call) => task.modelCalls.record(call),
    aroundTool: (callId, run) => inToolSpan(taskTraceOf(record), callId, run),
    budget: budgetGate(env, config, task, record, record.counters ?? userCounters(record.owner)),
  };
}

/** The limits a step of `turn`'s agent enforces under the configuration. */
function stepLimits({ config, agent }: Turn): StepLimits {
  return {
    maxTurns: Math.min(config.maxTurns, agent.maxTurns),
    idleTimeoutMs: config.modelIdleTimeoutMs,
    maxRetries: config.modelMaxRetries,
    retryBaseMs: config.modelRetryBaseMs,
    maxToolCallsPerTurn: config.maxToolCallsPerTurn,
  };
}

/** What the turn's tools get on every call. */
function toolContext(turn: Turn, emit: ToolContext["emit"]): ToolContext {
  const { env, config, record, agent, signal } = turn;
  return {
    taskId: record.id,
    contextId: record.contextId,
    agent: agent.name,
    owner: record.owner,
    signal,
    ...(turn.deadline === undefined ? {} : { deadline: turn.deadline }),
    config,
    workspace: turn.workspace,
    db: env.DB,
    memory: turn.memory,
    fetch: (input, init) => fetch(input, init),
    scratch: { bucket: env.FILES, scratchId: turn.scratchId },
    subagents: turn.subagents,
    remote: turn.remote,
    emit,
    attach: (file) => attachFile(turn.task, file, config),
    skills: agent.skillFolders,
    grants: toolGrants(env, agent),
    ...codeSandboxFor(env, agent, config),
  };
}

/**
 * Writes a chunk of the answer: a delta writes itself (its rows, its chunk event), never the
 * answer so far; a replacement (a retry that diverged) writes the turn's text once.
 */
function answerWriter({ task, signal }: Turn): StepDeps["emitAnswer"] {
  return (action, turnShown) => {
    if (signal.aborted) return;
    task.unit.run(() => {
      const loop = task.loopState.get();
      if (action.kind === "append") {
        task.loopState.appendTurnText(action.text);
        if (!loop.answerStarted) task.loopState.patch({ answerStarted: true });
        task.emitAnswerChunk(action.text, loop.answerStarted, false);
      } else {
        task.loopState.patch({ turnText: turnShown, answerStarted: true });
        task.emitAnswerChunk(loop.answerText + action.text, false, false);
      }
    });
  };
}
