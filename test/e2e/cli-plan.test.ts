/**
 * How the CLI shows a plan, in Node with no server: the plan line, then a line per step with its
 * status and the tag of the agent a step is delegated to (the planning agent's own steps carry
 * none); whatever a step's text holds, it stays on its line.
 */
import { describe, expect, it } from "vitest";
import { TaskView } from "../../cli/render.ts";

const EXT = "urn:a2a-edge-harness:ext:harness-events:v1";

/** The status update a `plan` event of `agent` arrives as (v1.0 JSON). */
function planEvent(agent: string, todos: unknown[]) {
  return {
    statusUpdate: {
      taskId: "t1",
      contextId: "c1",
      status: {
        state: "TASK_STATE_WORKING",
        message: {
          role: "ROLE_AGENT",
          parts: [
            { text: "Plan: 1 of 3 done" },
            {
              data: { kind: "plan", agent, detail: { todos } },
              mediaType: "application/json",
              metadata: { extension: EXT },
            },
          ],
        },
      },
    },
  };
}

describe("cli: plan steps", () => {
  it("lists the steps under the plan line, each delegated one with its agent's tag", () => {
    const written: string[] = [];
    const view = new TaskView({ write: (text) => void written.push(text), color: false });
    view.event(
      planEvent("assistant", [
        { content: "Read the brief", status: "completed", agent: "assistant" },
        { content: "Find three sources", status: "in_progress", agent: "researcher" },
        { content: "Draft\u001b[31m it\nnow", status: "pending", agent: "writer" },
      ]),
    );
    expect(written.join("").split("\n")).toEqual([
      "  ☰ plan Plan: 1 of 3 done [assistant]",
      "      [x] Read the brief",
      "      [~] [researcher] Find three sources",
      "      [ ] [writer] Draft [31m it now",
      "",
    ]);
  });
});
