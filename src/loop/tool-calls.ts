/**
 * The tool calls of one model turn, run in order through the hooks. A call that must wait (a
 * person's answer or approval, a sub-agent's task) saves the turn's calls and results so far and
 * suspends the step; the answer, when it comes, finishes that call and runs the rest. At most
 * `MAX_TOOL_CALLS_PER_TURN` calls of a turn run: the rest are answered, without running or
 * passing through the hooks, with an error result saying so (every tool_use keeps its
 * tool_result), and one `cap_reached` event says how many were dropped before any call runs.
 * The results reach the conversation as one user message, in one transaction.
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
import type { HookContext, ToolResult } from "./contracts.ts";
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
  if (from === 0 && calls.length > cap)
    hookContext.emit({
      kind: "cap_reached",
      text: `This turn asked for ${calls.length} tool calls; only the first ${cap} ran`,
      detail: `at most ${cap} tool calls per turn; ${calls.length - cap} not run`,
    });
  for (const [offset, call] of calls.slice(from, Math.max(from, cap)).entries()) {
    const i = from + offset;
    const decided = await deps.hooks.beforeTool(hookContext, call);
    let raw: ToolResult;
    if (decided && "suspend" in decided) raw = { content: "", suspend: decided.suspend };
    else raw = decided?.result ?? (await runTool(deps, call));
    if (deps.signal.aborted) return { kind: "aborted" };
    if (raw.suspend) {
      deps.setPendingCalls({
        calls,
        next: i,
        results,
        waiting: raw.suspend,
        resolution: null,
        deferred,
      });
      return { kind: "suspended", suspension: raw.suspend };
    }
    results.push(toResultBlock(call.id, await deps.hooks.afterTool(hookContext, call, raw)));
  }
  for (const call of calls.slice(Math.max(from, cap)))
    results.push(toResultBlock(call.id, notRun(calls.length, cap)));
  deps.transaction(() => {
    deps.appendConversation({ role: "user", content: results });
    for (const turn of deferred) deps.appendConversation(turn.message, turn.seq);
    deps.setPendingCalls(null);
  });
  return { kind: "continue" };
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
  const done = [
    ...pending.results,
    toResultBlock(call.id, await deps.hooks.afterTool(hookContext, call, result)),
  ];
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
