/**
 * A task object's spans, read from its own stores (record, event log, model calls, children) when
 * asked: for the trace route (with the local sub-agents to follow) and for the export at the
 * task's end. Nothing is kept for tracing beyond the records the task keeps anyway.
 */
import type { Config } from "../config/config.ts";
import { taskIdFor } from "../platform/ids.ts";
import type { TaskStateName } from "../protocol/wire.ts";
import { isTerminal } from "../task/state-machine.ts";
import type { TaskRuntime } from "../task/task-runtime.ts";
import { estimateCost } from "../users/pricing.ts";
import { modelOfTask } from "./cost.ts";
import { exportSpans } from "./export.ts";
import { logFacts, type TraceSpan } from "./span-types.ts";
import { taskSpans } from "./spans.ts";
import { taskTraceOf } from "./task-trace.ts";

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
  // Which tool call started each local child: its id is derived from the call's id (local.ts).
  const localChildren: Array<{ taskId: string; callId: string; agent: string }> = [];
  for (const fact of facts) {
    if (fact.type !== "harness" || fact.event.kind !== "tool_call" || !fact.event.callId) continue;
    for (const child of local) {
      const id = await taskIdFor(
        record.owner,
        child.agent,
        `subagent:${record.id}:${fact.event.callId}`,
      );
      if (id === child.id)
        localChildren.push({ taskId: id, callId: fact.event.callId, agent: child.agent });
    }
  }
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
 * When the task has ended and export is on: its spans, built and sent once the call that ended
 * it has answered (kept alive by the caller's background work); otherwise nothing at all.
 */
export function exportAtEnd(
  rt: Pick<TaskRuntime, "store" | "log" | "modelCalls" | "children" | "loopState">,
  config: Pick<Config, "trace">,
  state: string,
): Promise<void> | undefined {
  const target = config.trace.export;
  if (!target || !isTerminal(state as TaskStateName)) return undefined;
  return new Promise((resolve) => setTimeout(resolve, 0))
    .then(() => traceOfTask(rt, config))
    .then((trace) => exportSpans(target, trace.spans))
    .then(
      () => undefined,
      () => undefined,
    );
}
