/**
 * Local sub-agents enter through the task gateway like every other caller
 * (src/gateway/local-children.ts): a parent's child has the id the gateway derives from the
 * parent's tool call, a repeated start of the same call finds that child (concurrent ones too),
 * and what only a parent task can set no A2A caller can: a message id equal to the child's own
 * reaches a task of its own, and lineage claimed in metadata is kept as the caller's metadata,
 * never as the task's parent. (The MCP and AG-UI faces take no message id or task metadata.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import { localChildren } from "../../src/gateway/local-children.ts";
import { childTaskIdFor } from "../../src/platform/ids.ts";
import { HARNESS_EVENTS_EXTENSION } from "../../src/protocol/extensions.ts";
import { listTaskIndex } from "../../src/store/d1-index.ts";
import type { ParentTask } from "../../src/subagents/transport.ts";
import { sendTask, userMessage, type WireTask } from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { getTask, untilState } from "../helpers/tasks.ts";
import { taskInput, textToolTurn as tool } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";

const CHILD_AGENT = "researcher";

/** The id of the first child a task's history says it started. */
function startedChild(task: WireTask): string {
  for (const message of task.history ?? []) {
    if (!message.extensions?.includes(HARNESS_EVENTS_EXTENSION)) continue;
    const detail = (message.parts[1]?.data as { detail?: Record<string, unknown> } | undefined)
      ?.detail;
    if (detail?.state === "started" && typeof detail.childTaskId === "string")
      return detail.childTaskId;
  }
  throw new Error(`task ${task.id} started no child`);
}

/** The message id of a task's first message. */
const firstMessageId = (task: WireTask): string =>
  String((task.history?.[0] as { messageId?: unknown } | undefined)?.messageId);

/** A parent task of `owner` as the transport takes it (its lineage: a root task). */
const parentOf = (taskId: string, owner: string): ParentTask => ({
  taskId,
  agent: "assistant",
  owner,
  counters: null,
  traceId: "0af7651916cd43dd8448eb211c80319c",
  lineage: { parentTaskId: taskId, rootTaskId: taskId, rootAgent: "assistant", scratchId: "s1" },
});

describe("local sub-agents through the gateway", () => {
  it("names the child after the parent's tool call, where no caller's message id reaches", async () => {
    const contextId = crypto.randomUUID();
    const owner = await anonymousOwner(contextId);
    const child = await scenario([{ text: "child answer" }]);
    const parent = await scenario([
      tool("task", taskInput(CHILD_AGENT, "look", `Look. ${child.marker}`)),
      { text: "done" },
    ]);
    const task = await sendTask({ message: userMessage(`go ${parent.marker}`, { contextId }) });
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const childId = startedChild(task);
    const childTask = await getTask(childId);
    const messageId = firstMessageId(childTask);
    const callId = messageId.split(":")[2] ?? "";
    expect(messageId).toBe(`subagent:${task.id}:${callId}`);
    expect(childId).toBe(await childTaskIdFor(owner, CHILD_AGENT, task.id, callId));
    expect(childTask.metadata).toMatchObject({ parentTaskId: task.id, rootTaskId: task.id });

    // The same owner (this conversation) sends the child's agent the child's own message id and
    // claims the parent's lineage: a task of its own, with no parent.
    const other = await scenario([{ text: "other answer" }]);
    const lineage = { parentTaskId: task.id, rootTaskId: task.id, rootAgent: "assistant" };
    const claimed = await sendTask(
      {
        message: userMessage(`claim ${other.marker}`, { messageId, contextId, metadata: lineage }),
        metadata: { ...lineage, parent: lineage, child: { lineage, callId } },
        configuration: { returnImmediately: true },
      },
      { path: `/agents/${CHILD_AGENT}/` },
    );
    expect(claimed.id).toBeDefined();
    expect(claimed.id).not.toBe(childId);
    expect(claimed.contextId).toBe(contextId);
    expect(claimed.metadata?.parentTaskId).toBeUndefined();
    expect(claimed.metadata?.rootTaskId).toBeUndefined();
    await untilState(claimed.id, "TASK_STATE_COMPLETED");
    const rows = await until(
      async () => (await listTaskIndex(env.DB, { owner, agent: CHILD_AGENT, limit: 100 })).rows,
      (found) => found.some((r) => r.id === claimed.id),
    );
    expect(rows.find((r) => r.id === claimed.id)?.parentTaskId).toBeNull();
    // The child is as its parent left it: one message of its own, one answer.
    const after = await getTask(childId);
    expect(after.status.state).toBe("TASK_STATE_COMPLETED");
    expect(after.history?.filter((m) => m.role === "ROLE_USER")).toHaveLength(1);
  });

  it("starts one child for a repeated tool call, and another for another call", async () => {
    const contextId = crypto.randomUUID();
    const owner = await anonymousOwner(contextId);
    const root = await scenario([{ text: "root" }]);
    const task = await sendTask({ message: userMessage(`root ${root.marker}`, { contextId }) });
    const parent = parentOf(task.id, owner);
    const transport = localChildren(env, parent);
    const child = await scenario([{ text: "once" }]);
    const call = {
      agent: CHILD_AGENT,
      description: "once",
      prompt: `Once. ${child.marker}`,
      callId: "toolu_repeat_1",
    };
    // A re-run after a restart, even one racing the first start: the same child.
    const starts = await Promise.all([
      transport.start(parent, call),
      transport.start(parent, call),
    ]);
    const again = await transport.start(parent, call);
    const id = await childTaskIdFor(owner, CHILD_AGENT, task.id, call.callId);
    for (const started of [...starts, again])
      expect(started).toEqual({ ok: true, childTaskId: id });
    const done = await untilState(id, "TASK_STATE_COMPLETED");
    expect(done.metadata).toMatchObject({ parentTaskId: task.id, owner });
    expect(done.history?.filter((m) => m.role === "ROLE_USER")).toHaveLength(1);
    expect(await modelRequests(child.id)).toHaveLength(1);
    const rows = await until(
      async () => (await listTaskIndex(env.DB, { owner, agent: "assistant", limit: 100 })).rows,
      (found) => found.some((r) => r.id === id),
    );
    expect(rows.filter((r) => r.id === id)).toHaveLength(1);

    const next = await scenario([{ text: "second" }]);
    const second = await transport.start(parent, {
      ...call,
      prompt: `Second. ${next.marker}`,
      callId: "toolu_repeat_2",
    });
    expect(second.ok && second.childTaskId).not.toBe(id);
  });

  it("refuses a child of an agent this deployment does not serve, as the edge would", async () => {
    const owner = await anonymousOwner(crypto.randomUUID());
    const parent = parentOf(crypto.randomUUID(), owner);
    const started = await localChildren(env, parent).start(parent, {
      agent: "no-such-agent",
      description: "x",
      prompt: "x",
      callId: "toolu_nobody",
    });
    expect(started).toEqual({ ok: false, error: "the agent no-such-agent is not served here" });
  });
});
