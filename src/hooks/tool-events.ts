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

/** The fields of a call's input the events name, when they are text (the model sent it). */
function namedFields(input: unknown): { path?: string; description?: string; agent?: string } {
  const fields = typeof input === "object" && input !== null ? input : {};
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return {
    path: text("path" in fields ? fields.path : undefined),
    description: text("description" in fields ? fields.description : undefined),
    agent: text("subagent_type" in fields ? fields.subagent_type : undefined),
  };
}

/** A delegation shows as the sub-agent it calls, never as a generic "task". */
function subagentOf(call: { name: string; input: unknown }): string | undefined {
  return call.name === "task" ? namedFields(call.input).agent : undefined;
}

/** The tool events hook. */
export const toolEventsHook: Hook = {
  name: "tool-events",
  beforeTool(ctx, call) {
    const { path, description } = namedFields(call.input);
    const agent = subagentOf(call);
    ctx.emit({
      kind: "tool_call",
      text: agent
        ? `Calling agent ${agent}${description !== undefined ? `: ${description}` : ""}`
        : `Calling ${call.name}${path !== undefined ? ` on ${path}` : ""}`,
      tool: call.name,
      ...(path !== undefined ? { path } : {}),
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
