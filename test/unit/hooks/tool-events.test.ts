/**
 * The tool events hook's log (`LOG_TOOL_USE`): on, one info line per call naming the task, agent,
 * tool, outcome and result size, never the call's input or the result's text; off, none.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { toolEventsHook } from "../../../src/hooks/tool-events.ts";
import { hookContext } from "../../helpers/hook-context.ts";

const call = { id: "c1", name: "write_file", input: { path: "a.md", content: "secret words" } };
const result = { content: "wrote a.md\nsecret result", isError: false };

afterEach(() => vi.restoreAllMocks());

/** The JSON lines the hook's afterTool logged under `vars`. */
function loggedLines(vars: Record<string, string>): Array<Record<string, unknown>> {
  const lines: string[] = [];
  for (const level of ["info", "warn", "error", "log"] as const)
    vi.spyOn(console, level).mockImplementation((line: string) => void lines.push(line));
  const { ctx } = hookContext(vars);
  toolEventsHook.afterTool?.(ctx, call, result);
  vi.restoreAllMocks();
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("LOG_TOOL_USE", () => {
  it("logs one line per tool call with its outcome and size, never its input or result", () => {
    const lines = loggedLines({ LOG_TOOL_USE: "true" });
    expect(lines).toEqual([
      {
        level: "info",
        msg: "tool",
        task: "t1",
        agent: "assistant",
        tool: "write_file",
        ok: true,
        chars: result.content.length,
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain("secret");
  });

  it("logs nothing when off (the default)", () => {
    expect(loggedLines({})).toEqual([]);
  });
});
