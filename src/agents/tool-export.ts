/**
 * What a tool file (`agents/<agent>/tools/<tool>.ts`, `shared/tools/<tool>.ts`) exports by
 * default, as the bundle checks it: an object marked `kind: "agent-tool"`, with a name and a tool
 * that has a `run`. Only `defineAgentTool` (tools/custom/agent-tool.ts, `#harness/tool`) makes
 * one; the tool it holds is what the loop runs (tools/custom/custom-tools.ts). Pure.
 */

/** A tool file's default export, as the bundle checks it. */
export interface ToolExport {
  readonly kind: "agent-tool";
  readonly name: string;
  /** The tool the harness runs; the bundle only checks that it has a `run`. */
  readonly tool: { readonly run: (...args: never[]) => unknown };
}

/** Whether `value` (a tool file's default export) is a {@link ToolExport}. */
export function isToolExport(value: unknown): value is ToolExport {
  if (typeof value !== "object" || value === null) return false;
  if (!("kind" in value) || value.kind !== "agent-tool") return false;
  const tool = "tool" in value ? value.tool : undefined;
  return (
    (typeof tool === "object" || typeof tool === "function") &&
    tool !== null &&
    "run" in tool &&
    typeof tool.run === "function"
  );
}
