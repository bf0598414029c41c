/**
 * Users' data stay apart. User B tries every way into user A's task and data: GetTask, CancelTask,
 * SubscribeToTask (with and without Last-Event-ID), ListTasks, a follow-up message naming A's
 * task, the REST binding, A's workspace files and memory through tools, and A's scratchpad by
 * claiming A's root task id. Every attempt sees "task not found" or nothing at all.
 */
import { describe, expect, it } from "vitest";
import { SUBAGENT_METADATA } from "../../src/subagents/transport.ts";
import { conversationScratchId } from "../../src/task/store/lineage.ts";
import { type WireTask as Task, userMessage } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser, postAs, rpcAs } from "../helpers/as-user.ts";
import { savingTurns, scenario, toolResults } from "../helpers/fake-model.ts";
import { toolTurn as tool } from "../helpers/turns.ts";

describe("cross-user isolation", () => {
  it("hides a task from everyone but its owner", async () => {
    const a = await newUser();
    const b = await newUser();
    const s = await scenario([{ text: "for A only" }, { text: "again" }]);
    const made = await rpcAs<{ task: Task }>(a.token, "SendMessage", {
      message: userMessage(`mine ${s.marker}`),
    });
    const task = made.body.result?.task as Task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");

    const notFound = { code: -32001 };
    expect((await rpcAs(b.token, "GetTask", { id: task.id })).body.error).toMatchObject(notFound);
    expect((await rpcAs(b.token, "CancelTask", { id: task.id })).body.error).toMatchObject(
      notFound,
    );
    expect((await rpcAs(b.token, "SubscribeToTask", { id: task.id })).body.error).toMatchObject(
      notFound,
    );
    const resumed = await postAs(b.token, "SubscribeToTask", { id: task.id }, "/", closedEnv, {
      "Last-Event-ID": "0",
    });
    expect(((await resumed.json()) as { error?: { code: number } }).error?.code).toBe(-32001);
    const followUp = await rpcAs(b.token, "SendMessage", {
      message: userMessage("let me in", { taskId: task.id }),
    });
    expect(followUp.body.error).toMatchObject(notFound);
    const listed = await rpcAs<{ tasks: Task[] }>(b.token, "ListTasks", { pageSize: 100 });
    expect(listed.body.result?.tasks.some((t) => t.id === task.id)).toBe(false);
    const inContext = await rpcAs<{ tasks: Task[] }>(b.token, "ListTasks", {
      contextId: task.contextId,
    });
    expect(inContext.body.result?.tasks).toEqual([]);
    const rest = await callWorker(`/tasks/${task.id}`, {
      headers: { "A2A-Version": "1.0", Authorization: `Bearer ${b.token}` },
    });
    expect(rest.status).toBe(404);
    // The owner still sees it.
    expect((await rpcAs(a.token, "GetTask", { id: task.id })).body.result).toMatchObject({
      id: task.id,
    });
  });

  it("keeps workspaces, memory and scratchpads per user", async () => {
    const a = await newUser();
    const b = await newUser();
    const writes = await scenario([
      ...savingTurns({ "secret.md": "A's secret" }, "A likes green", { "plan.md": "A's plan" }),
      { text: "saved" },
    ]);
    const made = await rpcAs<{ task: Task }>(a.token, "SendMessage", {
      message: userMessage(`save ${writes.marker}`),
    });
    const madeTask = made.body.result?.task as Task;
    const scratchId = await conversationScratchId(
      madeTask.metadata?.owner as string,
      "assistant",
      madeTask.contextId,
    );

    const reads = await scenario([
      tool("read_file", { path: "secret.md" }),
      tool("list_files", {}),
      tool("memory_read", {}),
      tool("scratch_read", { path: "plan.md" }),
      tool("scratch_list", {}),
      { text: "nothing of A's" },
    ]);
    // B also claims A's scratchpad id, as a remote harness would name a shared scratchpad.
    await rpcAs(b.token, "SendMessage", {
      message: userMessage(`peek ${reads.marker}`, {
        metadata: {
          [SUBAGENT_METADATA]: { correlationId: "x1", parentAgent: "assistant", scratchId },
        },
      }),
    });
    const [file, listing, memory, scratch, scratchList] = await toolResults(reads.id);
    expect(file).toMatch(/^ERROR .*secret\.md/);
    expect(listing).not.toContain("secret.md");
    expect(memory).not.toContain("A likes green");
    expect(scratch).toMatch(/^ERROR scratch\/plan\.md does not exist/);
    expect(scratchList).toBe("The scratchpad is empty.");
  });
});
