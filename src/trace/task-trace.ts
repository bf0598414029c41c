/**
 * A task's place in its trace, as its record keeps it: the trace id (the task row), and in its
 * metadata the span it continues (`parentSpanId`: a caller's span, or the tool call of the task
 * that delegated to it) with the caller's `tracestate`. Pure.
 */
import { type SpanRef, spanRef, TASK_SPAN_KEY, traceHeaders } from "../platform/trace-context.ts";

/** A task's trace: its id, the parent of its span and the `tracestate` it passes on. */
export interface TaskTrace {
  taskId: string;
  traceId: string;
  parentSpanId?: string;
  traceState?: string;
}

/** The metadata fields that record the span a task continues. */
export function traceParentMetadata(parent: {
  parentSpanId: string;
  traceState?: string;
}): Record<string, string> {
  return {
    parentSpanId: parent.parentSpanId,
    ...(parent.traceState ? { traceState: parent.traceState } : {}),
  };
}

/** The trace of a task record. */
export function taskTraceOf(record: {
  id: string;
  traceId: string;
  metadata: Record<string, unknown>;
}): TaskTrace {
  const { parentSpanId, traceState } = record.metadata;
  return {
    taskId: record.id,
    traceId: record.traceId,
    ...(typeof parentSpanId === "string" ? { parentSpanId } : {}),
    ...(typeof traceState === "string" ? { traceState } : {}),
  };
}

/** The task's own span: the one its calls outside a tool call (push notifications) come from. */
export function taskSpan(trace: TaskTrace): Promise<SpanRef> {
  return spanRef(trace, TASK_SPAN_KEY);
}

/** The trace headers of a call a task makes outside a tool call (from its own span). */
export async function taskTraceHeaders(
  record: { id: string; traceId: string; metadata: Record<string, unknown> } | null,
): Promise<Record<string, string>> {
  return record ? traceHeaders(await taskSpan(taskTraceOf(record))) : {};
}
