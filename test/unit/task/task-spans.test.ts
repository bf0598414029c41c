/**
 * A task's spans read from its records: which tool call started each local sub-agent (a child's
 * id is derived from the call and the child's agent), for children of one agent and of several,
 * and none for a remote child or a call that started nothing.
 */
import { describe, expect, it } from "vitest";
import type { HarnessEvent } from "../../../src/loop/contracts.ts";
import { harnessEventMessage } from "../../../src/loop/harness-events.ts";
import { EMPTY_USAGE } from "../../../src/model/usage.ts";
import { childTaskIdFor } from "../../../src/platform/ids.ts";
import type { StreamEvent } from "../../../src/protocol/wire.ts";
import { traceOfTask } from "../../../src/task/task-spans.ts";

const TASK = "parent-1";
const OWNER = "user-1";
const at = (second: number) => Date.UTC(2026, 0, 1, 0, 0, second);
const childId = (agent: string, callId: string) => childTaskIdFor(OWNER, agent, TASK, callId);

/** A log entry carrying the `tool_call` event of `callId`. */
function toolCall(seq: number, tool: string, callId: string) {
  const event: HarnessEvent = {
    kind: "tool_call",
    text: `Calling ${tool}`,
    tool,
    detail: "",
    callId,
  };
  const message = harnessEventMessage("boss", event, { taskId: TASK, contextId: "ctx-1" });
  const update: StreamEvent = {
    statusUpdate: {
      taskId: TASK,
      contextId: "ctx-1",
      status: { state: "TASK_STATE_WORKING", message, timestamp: new Date(at(seq)).toISOString() },
    },
  };
  return { seq, at: at(seq), event: update };
}

describe("a task's spans from its records", () => {
  it("names the local child each tool call started, by its agent", async () => {
    const children = [
      { id: await childId("writer", "c1"), agent: "writer", transport: "local" },
      { id: await childId("critic", "c2"), agent: "critic", transport: "local" },
      { id: await childId("writer", "c4"), agent: "writer", transport: "local" },
      { id: "remote-child", agent: "far", transport: "far" },
    ];
    const log = [
      toolCall(1, "task", "c1"),
      toolCall(2, "task", "c2"),
      toolCall(3, "read_file", "c3"),
      toolCall(4, "task", "c4"),
      toolCall(5, "task", "c5"),
    ];
    const rt = {
      store: {
        record: {
          id: TASK,
          owner: OWNER,
          agent: "boss",
          contextId: "ctx-1",
          traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
          state: "TASK_STATE_COMPLETED",
          status: { state: "TASK_STATE_COMPLETED", timestamp: new Date(at(9)).toISOString() },
          metadata: {},
          createdAt: new Date(at(0)).toISOString(),
        },
      },
      log: { timeline: () => log },
      modelCalls: { all: () => [] },
      children: { all: () => children },
      loopState: { get: () => ({ usage: EMPTY_USAGE }) },
    } as unknown as Parameters<typeof traceOfTask>[0];
    const config = {
      trace: { webFetchTraceparent: false, includeContent: false, resource: {}, export: null },
    };
    const { spans, localChildren } = await traceOfTask(rt, config, at(10));

    expect(localChildren).toEqual(children.slice(0, 3).map((c) => c.id));
    const delegated = Object.fromEntries(
      spans
        .filter((s) => s.name.startsWith("execute_tool"))
        .map((s) => [
          s.attributes["gen_ai.tool.call.id"],
          [s.attributes["a2a.delegation.agent"], s.attributes["a2a.delegation.task_id"]],
        ]),
    );
    expect(delegated).toEqual({
      c1: ["writer", children[0]?.id],
      c2: ["critic", children[1]?.id],
      c3: [undefined, undefined],
      c4: ["writer", children[2]?.id],
      c5: [undefined, undefined],
    });
  });
});
