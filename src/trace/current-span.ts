/**
 * The span a task's outgoing call is made from, carried through the async work of a tool call
 * (AsyncLocalStorage), so every client the call uses (remote A2A agents, remote sub-agents, MCP
 * servers, a local sub-agent's task) sends `traceparent` naming the tool call's span without each
 * being handed it. Outside a tool call there is none, and callers fall back to the task's span.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type SpanRef, spanRef, toolSpanKey, traceHeaders } from "../platform/trace-context.ts";

const current = new AsyncLocalStorage<SpanRef>();

/** Runs `fn` with `span` as the span its outgoing calls are made from. */
export function withSpan<T>(span: SpanRef, fn: () => Promise<T>): Promise<T> {
  return current.run(span, fn);
}

/** The span outgoing calls are made from now, if any. */
export function currentSpan(): SpanRef | undefined {
  return current.getStore();
}

/** The trace headers for a call made now (none outside a traced call). */
export function currentTraceHeaders(): Record<string, string> {
  const span = current.getStore();
  return span ? traceHeaders(span) : {};
}

/** Runs a task's tool call `callId` as its span (see {@link withSpan}). */
export async function runTool<T>(
  task: { taskId: string; traceId: string; traceState?: string },
  callId: string,
  fn: () => Promise<T>,
): Promise<T> {
  return withSpan(await spanRef(task, toolSpanKey(callId)), fn);
}
