/**
 * A task's spans, built from its own records: the task (from its creation to its end), each step
 * (a model turn and the tool calls it asked for), each model call (`model_calls` rows, with the
 * OpenTelemetry GenAI attributes: tokens, cache reads and writes, stop reason, estimated cost),
 * each tool call (its `tool_call` and `tool_result` events, matched by call id), each wait for a
 * person (an input-required or auth-required stretch), and hook interventions as events. Ids are
 * derived from the task id (trace-context.ts), so the spans are the same however often they are
 * built, and a child names its parent without asking. No prompt, completion or tool text unless
 * `includeContent`. Pure but for hashing.
 */

import { spanIdFor, spanRef, TASK_SPAN_KEY, toolSpanKey } from "../platform/trace-context.ts";
import { HOOK_EVENT_KINDS } from "../protocol/harness-event-kinds.ts";
import type { StoredModelCall } from "./model-calls.ts";
import {
  type AttributeValue,
  type LogFact,
  type LoggedHarnessEvent,
  type TraceSpan,
  WAITING_STATES,
} from "./span-types.ts";
import type { TaskTrace } from "./task-trace.ts";

/** What a task's spans are built from. */
export interface TaskRecords {
  trace: TaskTrace;
  agent: string;
  contextId: string;
  state: string;
  createdMs: number;
  /** When it ended (its terminal status), or null while it goes on (spans end at `nowMs`). */
  endedMs: number | null;
  nowMs: number;
  facts: LogFact[];
  modelCalls: StoredModelCall[];
  /** The task's usage (its own and its sub-agents') and estimated cost. */
  usage: Record<string, number>;
  costUsd: number;
  /** Children this task started here, by the tool call that started each. */
  localChildren: Array<{ taskId: string; callId: string; agent: string }>;
  costOf(call: StoredModelCall): number;
  includeContent: boolean;
}

/** A span's reference (trace, id, `tracestate`) and its task, with no events or links yet. */
type SpanStart = Pick<
  TraceSpan,
  "traceId" | "spanId" | "taskId" | "events" | "links" | "traceState"
>;

/** The start of the task's span `key`: its reference is the one calls made from it send. */
async function spanStart(trace: TaskTrace, key: string): Promise<SpanStart> {
  return { ...(await spanRef(trace, key)), taskId: trace.taskId, events: [], links: [] };
}

/** Harness event kinds that are a hook's intervention (span events, not spans). */
const HOOK_KINDS: ReadonlySet<string> = new Set(HOOK_EVENT_KINDS);

const GEN_AI = { "gen_ai.provider.name": "anthropic", "gen_ai.system": "anthropic" };

/** Every span of one task (its sub-agents' are their own tasks'). */
export async function taskSpans(r: TaskRecords): Promise<TraceSpan[]> {
  const end = r.endedMs ?? r.nowMs;
  const task = await taskSpan(r, end);
  const steps = await stepSpans(r, task.spanId, end);
  const stepOf = (turn: number) =>
    steps.find((s) => s.attributes["a2a.step.turn"] === turn) ?? task;
  const stepAt = (at: number) =>
    [...steps].reverse().find((s) => s.startMs <= at && at <= s.endMs) ??
    [...steps].reverse().find((s) => s.startMs <= at) ??
    task;
  const spans = [
    task,
    ...steps,
    ...(await modelSpans(r, stepOf)),
    ...(await toolSpans(r, stepAt, end)),
    ...(await waitSpans(r, task.spanId, end)),
  ];
  // Hook interventions: events on the step they happened in.
  for (const fact of r.facts) {
    if (fact.type !== "harness" || !HOOK_KINDS.has(fact.event.kind)) continue;
    stepAt(fact.at).events.push({
      name: `harness.${fact.event.kind}`,
      atMs: fact.at,
      attributes: hookAttributes(fact.event, r.includeContent),
    });
  }
  return spans;
}

/** The task's span: from its creation to its end (or now), with its usage and cost. */
async function taskSpan(r: TaskRecords, end: number): Promise<TraceSpan> {
  const { trace } = r;
  return {
    ...(await spanStart(trace, TASK_SPAN_KEY)),
    ...(trace.parentSpanId ? { parentSpanId: trace.parentSpanId } : {}),
    name: `invoke_agent ${r.agent}`,
    kind: trace.parentSpanId ? "server" : "internal",
    startMs: r.createdMs,
    endMs: end,
    attributes: {
      ...GEN_AI,
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": r.agent,
      "gen_ai.conversation.id": r.contextId,
      "a2a.task.id": trace.taskId,
      "a2a.task.state": r.state,
      "a2a.task.ended": r.endedMs !== null,
      ...Object.fromEntries(Object.entries(r.usage).map(([k, v]) => [`a2a.task.usage.${k}`, v])),
      "a2a.task.cost_usd": r.costUsd,
    },
    status: { code: r.state === "TASK_STATE_FAILED" ? "error" : "unset" },
  };
}

/** Steps: one per turn, from its first model call to the next turn's first (the last: its end). */
async function stepSpans(r: TaskRecords, taskSpanId: string, end: number): Promise<TraceSpan[]> {
  const firstCall = (turn: number) =>
    Math.min(...r.modelCalls.filter((c) => c.turn === turn).map((c) => c.startedAt));
  const turns = [...new Set(r.modelCalls.map((c) => c.turn))].sort((a, b) => a - b);
  const steps: TraceSpan[] = [];
  for (const [i, turn] of turns.entries()) {
    const calls = r.modelCalls.filter((c) => c.turn === turn);
    const startMs = firstCall(turn);
    const nextTurn = turns[i + 1];
    const next = nextTurn === undefined ? end : firstCall(nextTurn);
    const lastFact = r.facts.filter((f) => f.at >= startMs && f.at < next).at(-1)?.at ?? startMs;
    const endMs = Math.max(...calls.map((c) => c.endedAt), nextTurn === undefined ? end : lastFact);
    steps.push({
      ...(await spanStart(r.trace, `step:${turn}`)),
      parentSpanId: taskSpanId,
      name: `step ${turn + 1}`,
      kind: "internal",
      startMs,
      endMs: Math.max(startMs, endMs),
      attributes: { "a2a.step.turn": turn },
      status: { code: "unset" },
    });
  }
  return steps;
}

/** Model calls: each a client span under the step of its turn, with its tokens and cost. */
async function modelSpans(
  r: TaskRecords,
  stepOf: (turn: number) => TraceSpan,
): Promise<TraceSpan[]> {
  const spans: TraceSpan[] = [];
  for (const call of r.modelCalls) {
    spans.push({
      ...(await spanStart(r.trace, `model:${call.seq}`)),
      parentSpanId: stepOf(call.turn).spanId,
      name: `chat ${call.model}`,
      kind: "client",
      startMs: call.startedAt,
      endMs: call.endedAt,
      attributes: {
        ...GEN_AI,
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": call.model,
        "gen_ai.usage.input_tokens": call.inputTokens,
        "gen_ai.usage.output_tokens": call.outputTokens,
        "gen_ai.usage.cache_read.input_tokens": call.cacheReadTokens,
        "gen_ai.usage.cache_creation.input_tokens": call.cacheWriteTokens,
        ...(call.stopReason ? { "gen_ai.response.finish_reasons": [call.stopReason] } : {}),
        "a2a.model_call.kind": call.kind,
        "a2a.model_call.attempt": call.attempt,
        "a2a.cost_usd": r.costOf(call),
        ...(call.error ? { "error.type": "model_call_failed" } : {}),
      },
      status: call.error ? { code: "error", message: call.error } : { code: "unset" },
    });
  }
  return spans;
}

/** Waits for a person: from the status that asks to the next status (or the task's end). */
async function waitSpans(r: TaskRecords, taskSpanId: string, end: number): Promise<TraceSpan[]> {
  const spans: TraceSpan[] = [];
  for (const [i, fact] of r.facts.entries()) {
    if (fact.type !== "status" || !WAITING_STATES.has(fact.state)) continue;
    const after = r.facts.slice(i + 1).find((f) => f.type === "status");
    spans.push({
      ...(await spanStart(r.trace, `wait:${fact.seq}`)),
      parentSpanId: taskSpanId,
      name: fact.state === "TASK_STATE_AUTH_REQUIRED" ? "wait for auth" : "wait for input",
      kind: "internal",
      startMs: fact.at,
      endMs: after?.at ?? end,
      attributes: { "a2a.wait.state": fact.state, "a2a.wait.answered": after !== undefined },
      status: { code: "unset" },
    });
  }
  return spans;
}

/** Tool spans: each `tool_call` event to the `tool_result` of the same call. */
async function toolSpans(
  r: TaskRecords,
  stepAt: (at: number) => TraceSpan,
  end: number,
): Promise<TraceSpan[]> {
  const out: TraceSpan[] = [];
  const childOfCall = new Map(r.localChildren.map((c) => [c.callId, c]));
  for (const fact of r.facts) {
    if (fact.type !== "harness" || fact.event.kind !== "tool_call" || !fact.event.callId) continue;
    const callId = fact.event.callId;
    const result = r.facts.find(
      (f): f is Extract<LogFact, { type: "harness" }> =>
        f.type === "harness" && f.event.kind === "tool_result" && f.event.callId === callId,
    );
    const tool = fact.event.tool ?? "unknown";
    const ok = result?.event.ok;
    const child = childOfCall.get(callId);
    const attributes: Record<string, AttributeValue> = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool,
      "gen_ai.tool.call.id": callId,
      "a2a.tool.outcome": result ? (ok === false ? "error" : "ok") : "unfinished",
      ...(typeof result?.event.chars === "number"
        ? { "a2a.tool.output_chars": result.event.chars }
        : {}),
      ...(child
        ? { "a2a.delegation.task_id": child.taskId, "a2a.delegation.agent": child.agent }
        : {}),
      ...(r.includeContent && typeof fact.event.detail === "string"
        ? { "gen_ai.tool.call.arguments": fact.event.detail }
        : {}),
    };
    const span = {
      ...(await spanStart(r.trace, toolSpanKey(callId))),
      parentSpanId: stepAt(fact.at).spanId,
      name: `execute_tool ${tool}`,
      kind: "internal" as const,
      startMs: fact.at,
      endMs: result?.at ?? end,
      attributes,
      status:
        ok === false
          ? {
              code: "error" as const,
              ...(r.includeContent && typeof result?.event.detail === "string"
                ? { message: result.event.detail }
                : {}),
            }
          : { code: "unset" as const },
    };
    if (child)
      span.links.push({
        traceId: r.trace.traceId,
        spanId: await spanIdFor(child.taskId, TASK_SPAN_KEY),
        attributes: { "a2a.link": "delegation" },
      });
    out.push(span);
  }
  return out;
}

function hookAttributes(
  event: LoggedHarnessEvent,
  includeContent: boolean,
): Record<string, AttributeValue> {
  return {
    "a2a.hook.kind": event.kind,
    ...(event.tool ? { "gen_ai.tool.name": event.tool } : {}),
    ...(includeContent && typeof event.detail === "string"
      ? { "a2a.hook.detail": event.detail }
      : {}),
  };
}
