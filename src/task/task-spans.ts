/**
 * A task object's spans, read from its own stores (record, event log, model calls, children) when
 * asked: for the trace route (api/trace-routes.ts, with the local sub-agents to follow) and for
 * the export at the task's end (with keyed stand-ins for its ids). Nothing is kept for tracing
 * beyond the records the task keeps anyway; trace/ builds the spans from them and sends them.
 */
import type { Config } from "../config/config.ts";
import { estimateCost } from "../model/pricing.ts";
import { childTaskIdFor } from "../platform/ids.ts";
import { isTerminal } from "../protocol/task-states.ts";
import type { TaskStateName } from "../protocol/wire.ts";
import { modelOfTask } from "../trace/cost.ts";
import { exportSpans } from "../trace/export.ts";
import { exportedIdKey, exportedSpans } from "../trace/exported-ids.ts";
import { type LogFact, logFacts, type TraceSpan } from "../trace/span-types.ts";
import { taskSpans } from "../trace/spans.ts";
import { taskTraceOf } from "../trace/task-trace.ts";
import type { TaskRuntime } from "./runtime/task-runtime.ts";
import type { ChildRecord } from "./store/children.ts";

/** A task's spans and the sub-agent tasks of this Worker it started (their spans are theirs). */
export interface TaskTraceAnswer {
  spans: TraceSpan[];
  localChildren: string[];
}

/** The spans of the task `rt` holds (none when it holds no task). */
export async function traceOfTask(
  rt: Pick<TaskRuntime, "store" | "log" | "modelCalls" | "children" | "loopState">,
  config: Pick<Config, "trace">,
  nowMs = Date.now(),
): Promise<TaskTraceAnswer> {
  const record = rt.store.record;
  if (!record) return { spans: [], localChildren: [] };
  const facts = logFacts(rt.log.timeline());
  const local = rt.children.all().filter((c) => c.transport === "local");
  const localChildren = await childCalls(record, facts, local);
  const usage = rt.loopState.get().usage;
  const spans = await taskSpans({
    trace: taskTraceOf(record),
    agent: record.agent,
    contextId: record.contextId,
    state: record.state,
    createdMs: Date.parse(record.createdAt),
    endedMs: isTerminal(record.state) ? Date.parse(record.status.timestamp) : null,
    nowMs,
    facts,
    modelCalls: rt.modelCalls.all(),
    usage: { ...usage },
    costUsd: estimateCost(modelOfTask(record.metadata), usage),
    localChildren,
    costOf: (call) => estimateCost(call.model, call),
    includeContent: config.trace.includeContent,
  });
  return { spans, localChildren: local.map((c) => c.id) };
}

/**
 * Which tool call started each local child, in the order of the calls. A child's id is derived
 * from the call's id and the child's agent (childTaskIdFor): each `task` call's id is hashed
 * once per agent that has local children, into a map from child id to call.
 */
async function childCalls(
  record: { id: string; owner: string },
  facts: LogFact[],
  local: ChildRecord[],
): Promise<Array<{ taskId: string; callId: string; agent: string }>> {
  if (local.length === 0) return [];
  const agents = [...new Set(local.map((c) => c.agent))];
  const byChildId = new Map<string, { callId: string; agent: string }>();
  for (const fact of facts) {
    if (fact.type !== "harness" || fact.event.kind !== "tool_call" || !fact.event.callId) continue;
    if (fact.event.tool !== "task") continue; // only the task tool starts local children
    const callId = fact.event.callId;
    for (const agent of agents) {
      const id = await childTaskIdFor(record.owner, agent, record.id, callId);
      if (!byChildId.has(id)) byChildId.set(id, { callId, agent });
    }
  }
  const children = new Map(local.map((c) => [c.id, c.agent]));
  return [...byChildId].flatMap(([taskId, call]) =>
    children.get(taskId) === call.agent ? [{ taskId, ...call }] : [],
  );
}

/**
 * When the task has ended and export is on: its spans, built and sent once the call that ended
 * it has answered (kept alive by the caller's background work), with keyed stand-ins for the ids
 * that open anything (trace/exported-ids.ts, the key read from `db`); otherwise nothing at all.
 */
export function exportAtEnd(
  rt: Pick<TaskRuntime, "store" | "log" | "modelCalls" | "children" | "loopState">,
  config: Pick<Config, "trace">,
  db: D1Database,
  state: TaskStateName,
): Promise<void> | undefined {
  const target = config.trace.export;
  if (!target || !isTerminal(state)) return undefined;
  return new Promise((resolve) => setTimeout(resolve, 0))
    .then(() => Promise.all([traceOfTask(rt, config), exportedIdKey(db)]))
    .then(([trace, key]) => exportedSpans(trace.spans, key))
    .then((spans) => exportSpans(target, spans))
    .then(
      () => undefined,
      () => undefined,
    );
}
