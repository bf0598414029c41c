/**
 * The tool calls of one model turn, run in order through the hooks. A call that must wait (a
 * person's answer or approval, a sub-agent's task) saves the turn's calls and results so far and
 * suspends the step; the answer, when it comes, finishes that call and runs the rest. At most
 * `MAX_TOOL_CALLS_PER_TURN` calls of a turn run: the rest are answered, without running or
 * passing through the hooks, with an error result saying so (every tool_use keeps its
 * tool_result), and one `cap_reached` event says how many were dropped before any call runs.
 * Each call is journaled (`StepDeps.journal`) as it starts and as it ends, so a turn a restart
 * cut off resumes at its first unfinished call: a finished call is never run again, and a call
 * that started and never returned is run again only if its tool only reads (else the model is
 * told it may or may not have taken effect). The results reach the conversation as one user
 * message, in one transaction.
 */

import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { stateWord } from "../protocol/task-states.ts";
import {
  answerContent,
  approvalFrom,
  type ChildOutcome,
  type PendingCall,
  type PendingCalls,
} from "./calls/suspension.ts";
import type { HookContext, Suspension, ToolResult } from "./contracts.ts";
import type { StepDeps, StepOutcome } from "./step-types.ts";

/**
 * Runs `calls` from index `from` in order, up to the per-turn cap. When one must wait (a
 * person's answer or approval), the calls and the results so far are saved and the step ends
 * suspended; otherwise the results (those past the cap: "not run") go into the conversation as
 * one user message (then any turns deferred while waiting).
 */
export async function runCalls(
  deps: StepDeps,
  hookContext: HookContext,
  calls: PendingCall[],
  from: number,
  done: ToolResultBlockParam[],
  deferred: PendingCalls["deferred"],
): Promise<StepOutcome> {
  const results = [...done];
  const cap = deps.limits.maxToolCallsPerTurn;
  const resumed = calls.some((call) => deps.journal?.entry(call.id));
  if (from === 0 && calls.length > cap && !resumed)
    hookContext.emit({
      kind: "cap_reached",
      text: `This turn asked for ${calls.length} tool calls; only the first ${cap} ran`,
      detail: `at most ${cap} tool calls per turn; ${calls.length - cap} not run`,
    });
  for (const [offset, call] of calls.slice(from, Math.max(from, cap)).entries()) {
    const ran = await runCall(deps, hookContext, call);
    if (ran.kind === "aborted") return ran;
    if (ran.kind === "suspended") {
      deps.setPendingCalls({
        calls,
        next: from + offset,
        results,
        waiting: ran.suspension,
        resolution: null,
        deferred,
      });
      return ran;
    }
    results.push(ran.result);
  }
  for (const call of calls.slice(Math.max(from, cap)))
    results.push(toResultBlock(call.id, notRun(calls.length, cap)));
  deps.transaction(() => {
    deps.appendConversation({ role: "user", content: results });
    for (const turn of deferred) deps.appendConversation(turn.message, turn.seq);
    deps.setPendingCalls(null);
    deps.journal?.committed(calls.map((call) => call.id));
  });
  return { kind: "continue" };
}

/** How one call of the turn went: its result, a wait, or the task was canceled meanwhile. */
type CallRun =
  | { kind: "done"; result: ToolResultBlockParam }
  | { kind: "suspended"; suspension: Suspension }
  | { kind: "aborted" };

/**
 * One call of the turn, through the journal: a call that finished before a restart gets its
 * result back without running; one that started and never returned runs again if its tool only
 * reads, else the model is told it may or may not have taken effect; any other runs through the
 * hooks, journaled as it starts and as it ends.
 */
async function runCall(
  deps: StepDeps,
  hookContext: HookContext,
  call: PendingCall,
): Promise<CallRun> {
  const journaled = deps.journal?.entry(call.id) ?? null;
  if (journaled?.result) return { kind: "done", result: journaled.result };
  let raw: ToolResult;
  if (journaled && !deps.tools.rerunnable(call.name)) raw = cutOff(call.name);
  else {
    const decided = await deps.hooks.beforeTool(hookContext, call);
    if (decided && "suspend" in decided) return { kind: "suspended", suspension: decided.suspend };
    if (decided?.result) raw = decided.result;
    else {
      deps.journal?.started(call, hookContext.turn);
      raw = await runTool(deps, call);
    }
    if (deps.signal.aborted) return { kind: "aborted" };
    if (raw.suspend) return { kind: "suspended", suspension: raw.suspend };
  }
  const result = toResultBlock(call.id, await deps.hooks.afterTool(hookContext, call, raw));
  deps.journal?.finished(call.id, result);
  return { kind: "done", result };
}

/** The result of a call with effects that a restart cut off: it may or may not have happened. */
export function cutOff(tool: string): ToolResult {
  return {
    content: `This call of ${tool} was cut off by a restart of the task before it returned: it may or may not have taken effect. Check whether it did (read back what it would have changed) before you repeat it.`,
    isError: true,
  };
}

/** After the answer arrived: the waiting call's result, then the turn's remaining calls. */
export async function finishPendingCalls(
  deps: StepDeps,
  hookContext: HookContext,
  pending: PendingCalls,
): Promise<StepOutcome> {
  const resolution = pending.resolution;
  if (!resolution) return { kind: "suspended", suspension: pending.waiting };
  const call = pending.calls[pending.next];
  if (call === undefined) throw new Error("the waiting tool call is not among the turn's calls");
  const waiting = pending.waiting;
  let result: ToolResult;
  if (waiting.kind === "child") {
    if (resolution.kind === "reply") {
      // The person answered the sub-agent's question: pass it down and keep waiting.
      await deps.toolContext.subagents.answer(waiting.childTaskId, resolution.parts);
      deps.setPendingCalls({ ...pending, resolution: null });
      return { kind: "suspended", suspension: waiting };
    }
    result = childResult(waiting.agent, resolution);
  } else if (resolution.kind !== "reply") {
    return { kind: "suspended", suspension: waiting };
  } else if (waiting.kind === "question") {
    result = { content: answerContent(resolution) };
  } else {
    const { approved, reason } = approvalFrom(resolution);
    const words = reason.trim() ? ` They said: "${reason.trim().slice(0, 1_000)}"` : "";
    result = approved
      ? await runTool(deps, call)
      : {
          content: `The user did not approve this call of ${call.name}.${words} Do not repeat it unless they ask; go on without it or ask them how to proceed.`,
          isError: true,
        };
    if (deps.signal.aborted) return { kind: "aborted" };
  }
  const answered = toResultBlock(call.id, await deps.hooks.afterTool(hookContext, call, result));
  deps.journal?.finished(call.id, answered);
  const done = [...pending.results, answered];
  return runCalls(deps, hookContext, pending.calls, pending.next + 1, done, pending.deferred);
}

/** Runs `call` through the registry (inside its span, when the step traces tool calls). */
function runTool(deps: StepDeps, call: PendingCall): Promise<ToolResult> {
  const run = () => deps.tools.run(call.name, call.input, { ...deps.toolContext, callId: call.id });
  return deps.aroundTool ? deps.aroundTool(call.id, run) : run();
}

/** The result of a call past the turn's cap: it did not run. */
function notRun(asked: number, cap: number): ToolResult {
  return {
    content: `Not run: this turn asked for ${asked} tool calls and at most ${cap} run in one turn. Call it again in a later turn if you still need it, with fewer calls at once.`,
    isError: true,
  };
}

/** What the model gets back from a sub-agent's task. */
function childResult(agent: string, outcome: ChildOutcome): ToolResult {
  if (outcome.state === "TASK_STATE_COMPLETED")
    return { content: outcome.text || `The ${agent} sub-agent finished without an answer.` };
  const how = stateWord(outcome.state);
  return {
    content: `The ${agent} sub-agent ${how === "canceled" ? "was canceled" : how}${outcome.text ? `: ${outcome.text}` : "."}`,
    isError: true,
  };
}

function toResultBlock(id: string, result: ToolResult): ToolResultBlockParam {
  return {
    type: "tool_result",
    tool_use_id: id,
    content: result.content,
    ...(result.isError ? { is_error: true } : {}),
  };
}
