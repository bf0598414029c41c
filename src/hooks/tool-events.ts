/**
 * Publishes every tool call and its result on the task's stream (harness events `tool_call` and
 * `tool_result`), and, with `LOG_TOOL_USE`, writes one structured log line per call. Runs last,
 * so the result it reports is what the model sees.
 */
import type { Hook } from "../loop/contracts.ts";
import { log } from "../platform/logging.ts";

const preview = (input: unknown) => {
  const text = JSON.stringify(input) ?? "";
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

/** A delegation shows as the sub-agent it calls, never as a generic "task". */
function subagentOf(call: { name: string; input: unknown }): string | null {
  if (call.name !== "task") return null;
  const type = (call.input as { subagent_type?: unknown } | null)?.subagent_type;
  return typeof type === "string" ? type : null;
}

/** The tool events hook. */
export const toolEventsHook: Hook = {
  name: "tool-events",
  beforeTool(ctx, call) {
    const path = (call.input as { path?: unknown } | null)?.path;
    const agent = subagentOf(call);
    const description = (call.input as { description?: unknown } | null)?.description;
    ctx.emit({
      kind: "tool_call",
      text: agent
        ? `Calling agent ${agent}${typeof description === "string" ? `: ${description}` : ""}`
        : `Calling ${call.name}${typeof path === "string" ? ` on ${path}` : ""}`,
      tool: call.name,
      ...(typeof path === "string" ? { path } : {}),
      detail: preview(call.input),
      callId: call.id,
    });
    return undefined;
  },
  afterTool(ctx, call, result) {
    const lines = result.content.split("\n").length;
    const agent = subagentOf(call);
    ctx.emit({
      kind: "tool_result",
      text: agent
        ? `Agent ${agent} ${result.isError ? "did not finish" : "finished"}`
        : `${call.name} ${result.isError ? "failed" : "returned"} ${lines} line${lines === 1 ? "" : "s"}`,
      tool: call.name,
      detail: result.isError
        ? result.content.slice(0, 300)
        : `${lines} lines, ${result.content.length} characters`,
      callId: call.id,
      outcome: { ok: !result.isError, chars: result.content.length },
    });
    if (ctx.config.logToolUse)
      log("info", "tool", {
        task: ctx.taskId,
        agent: ctx.agent,
        tool: call.name,
        ok: !result.isError,
        chars: result.content.length,
      });
    return result;
  },
};
