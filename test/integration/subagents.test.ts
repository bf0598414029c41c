/**
 * Sub-agents through the A2A endpoint with the scripted model: the `task` tool runs researcher,
 * deep-thinker and writer as child tasks sharing the root task's scratchpad; children carry their
 * lineage, show under their parent in ListTasks, count into its usage and appear on its stream
 * by name; a child's approval request passes up to the parent's caller and the answer back down;
 * cancelling the parent cancels its children; scratchpads of different root tasks stay apart.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import { HARNESS_EVENTS_EXTENSION } from "../../src/protocol/extensions.ts";
import { listTaskIndex } from "../../src/store/d1-index.ts";
import { conversationScratchId } from "../../src/task/store/lineage.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import { rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { restoreScenario } from "../helpers/approval.ts";
import { modelRequests, scenario, toolResults } from "../helpers/fake-model.ts";
import { getTask, untilState } from "../helpers/tasks.ts";
import { taskInput, textToolTurn as tool } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";

const delegate = (agent: string, prompt: string, description = `${agent} step`) =>
  tool("task", taskInput(agent, description, prompt));

const send = async (message: Record<string, unknown>, path = "/", config = {}) =>
  (await rpc<{ task: WireTask }>("SendMessage", { message, configuration: config }, { path }))
    .result?.task as WireTask;

type HarnessEvent = {
  text: string;
  kind?: string;
  state?: string;
  agent?: string;
  childTaskId?: string;
};

/** The harness events of a task's history: text, kind and the fields of an object detail. */
const eventsOf = (task: WireTask): HarnessEvent[] =>
  (task.history ?? [])
    .filter((m) => m.extensions?.includes(HARNESS_EVENTS_EXTENSION))
    .map((m) => {
      const data = (m.parts[1]?.data ?? {}) as { kind?: string; detail?: unknown };
      const detail = typeof data.detail === "object" && data.detail !== null ? data.detail : {};
      return { text: m.parts[0]?.text ?? "", kind: data.kind, ...detail };
    });

describe("sub-agents", () => {
  it("researcher -> deep-thinker -> writer through the shared scratchpad", async () => {
    const report = `report-${crypto.randomUUID().slice(0, 8)}.md`;
    // What each sub-agent leaves in the scratchpad for the next.
    const findings = {
      path: "findings.md",
      content: "Fact: edge latency is 12 ms (src: notes.md:3)",
    };
    const analysis = { path: "analysis.md", content: "Recommendation: deploy at the edge." };
    const researcher = await scenario([
      tool("scratch_write", findings),
      { text: "Findings are in findings.md." },
    ]);
    const thinker = await scenario([
      tool("scratch_read", { path: findings.path }),
      tool("scratch_write", analysis),
      { text: "Recommend the edge; see analysis.md." },
    ]);
    const writer = await scenario([
      tool("scratch_read", { path: analysis.path }),
      tool("write_file", { path: report, content: "# Report\nDeploy at the edge." }),
      tool("read_file", { path: report }),
      { text: `Wrote ${report}.` },
    ]);
    const parent = await scenario([
      delegate("researcher", `Research latency. ${researcher.marker}`, "gather latency facts"),
      delegate("deep-thinker", `Analyse findings.md. ${thinker.marker}`),
      delegate("writer", `Write the report. ${writer.marker}`),
      { text: `Done: ${report}` },
    ]);
    const task = await send(userMessage(`plan the deployment ${parent.marker}`));
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");

    // Each child's answer came back as the tool result, in order.
    expect(await toolResults(parent.id)).toEqual([
      "Findings are in findings.md.",
      "Recommend the edge; see analysis.md.",
      `Wrote ${report}.`,
    ]);
    // The deep-thinker read what the researcher wrote; the writer read the analysis.
    expect((await toolResults(thinker.id))[0]).toContain("Fact: edge latency is 12 ms");
    expect((await toolResults(writer.id))[0]).toContain("Recommendation: deploy at the edge.");
    // The writer wrote into the root agent's workspace.
    const owner = task.metadata?.owner as string;
    const file = await workspaceFor(env.WORKSPACES, "assistant", owner).read(report, {});
    expect(file.ok && file.value.content).toContain("Deploy at the edge.");

    // The stream shows each delegation by the sub-agent's name, its progress and its end.
    const texts = eventsOf(task).map((e) => e.text);
    expect(texts).toContain("Calling agent researcher: gather latency facts");
    expect(texts).toContain("Agent researcher started: gather latency facts");
    expect(texts).toContain("researcher: Calling scratch_write on findings.md");
    expect(texts).toContain("Agent researcher completed");
    expect(texts).toContain("Agent writer finished");
    expect(texts.some((t) => /^Calling task\b/.test(t))).toBe(false);

    // Children carry the lineage, are listed under the parent's agent and count into its usage.
    const started = eventsOf(task).filter((e) => e.state === "started");
    expect(started.map((e) => e.agent)).toEqual(["researcher", "deep-thinker", "writer"]);
    const childIds = started.map((e) => e.childTaskId as string);
    for (const id of childIds) {
      const child = await getTask(id);
      expect(child.status.state).toBe("TASK_STATE_COMPLETED");
      expect(child.metadata).toMatchObject({
        parentTaskId: task.id,
        rootTaskId: task.id,
        rootAgent: "assistant",
        scratchId: await conversationScratchId(owner, "assistant", task.contextId),
        owner,
        traceId: task.metadata?.traceId,
      });
    }
    // The children are indexed under the root agent (an anonymous caller reaches them by id: each
    // runs in a conversation of its own, which ListTasks by the parent's contextId does not list).
    const listed = await until(
      async () => (await listTaskIndex(env.DB, { owner, agent: "assistant", limit: 100 })).rows,
      (rows) => childIds.every((id) => rows.some((r) => r.id === id)),
    );
    expect(listed.find((r) => r.id === childIds[0])?.parentTaskId).toBe(task.id);
    const usage = task.metadata?.usage as { modelCalls: number };
    // 4 parent turns + 2 researcher + 3 deep-thinker + 4 writer model calls.
    expect(usage.modelCalls).toBe(13);
  });

  it("gives sub-agents no ask_user or task tool, and refuses unknown types", async () => {
    const child = await scenario([{ text: "child answer" }]);
    const parent = await scenario([
      delegate("nobody", "x"),
      delegate("researcher", `Look. ${child.marker}`),
      { text: "ok" },
    ]);
    const task = await send(userMessage(`delegate ${parent.marker}`));
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const results = await toolResults(parent.id);
    expect(results[0]).toMatch(/^ERROR Could not start nobody: unknown sub-agent type "nobody"/);
    expect(results[1]).toBe("child answer");
    const childRequest = (await modelRequests(child.id))[0];
    if (!childRequest) throw new Error("the child made no model call");
    const childTools = (
      childRequest.body as unknown as { tools: Array<{ name: string }> }
    ).tools.map((t) => t.name);
    expect(childTools).not.toContain("ask_user");
    expect(childTools).not.toContain("task");
    expect(childTools).not.toContain("write_file");
    expect(childTools).toContain("scratch_write");
    const parentSystem = JSON.stringify((await modelRequests(parent.id))[0]?.body.system);
    expect(parentSystem).toContain("- researcher: Gathers facts");
  });

  it("passes a child's approval request up to the caller and the answer down", async () => {
    const contextId = crypto.randomUUID();
    const owner = await anonymousOwner(contextId);
    const { id, restore: writer } = await restoreScenario("assistant", owner, "Restored as asked.");
    const parent = await scenario([
      delegate("writer", `Roll back. ${writer.marker}`),
      { text: "The writer rolled back." },
    ]);
    const paused = await send(userMessage(`roll back ${parent.marker}`, { contextId }));
    expect(paused.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const parts = paused.status.message?.parts ?? [];
    expect(parts[0]?.text).toBe("The writer sub-agent asks:");
    expect(parts[1]?.text).toContain("Approve the call of checkpoint_restore");
    expect(parts[2]?.data).toMatchObject({ kind: "approval", tool: "checkpoint_restore" });

    const done = await send(userMessage("yes", { taskId: paused.id }));
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect((await toolResults(writer.id))[0]).toContain(`Restored checkpoint ${id}`);
    expect(await toolResults(parent.id)).toEqual(["Restored as asked."]);
  });

  it("cancelling the parent cancels its running children", async () => {
    // Seven deltas 400 ms apart: the child is still streaming when the parent is canceled.
    const child = await scenario([{ text: "slow...", chunkSize: 1, delayMs: 400 }]);
    const parent = await scenario([delegate("researcher", `Slow. ${child.marker}`), { text: "x" }]);
    const task = await send(userMessage(`slow ${parent.marker}`), "/", { returnImmediately: true });
    const started = await until(
      () => getTask(task.id),
      (t) => eventsOf(t).some((e) => e.state === "started"),
    );
    const childId = eventsOf(started).find((e) => e.state === "started")?.childTaskId as string;
    const canceled = await rpc<WireTask>("CancelTask", { id: task.id });
    expect(canceled.result?.status.state).toBe("TASK_STATE_CANCELED");
    const childTask = await untilState(childId, "TASK_STATE_CANCELED");
    expect(childTask.status.state).toBe("TASK_STATE_CANCELED");
  });

  it("keeps the scratchpads of different root tasks apart", async () => {
    const a = await scenario([
      tool("scratch_write", { path: "shared-name.md", content: "from A" }),
      { text: "a" },
    ]);
    const b = await scenario([tool("scratch_read", { path: "shared-name.md" }), { text: "b" }]);
    await send(userMessage(`a ${a.marker}`));
    await send(userMessage(`b ${b.marker}`));
    expect((await toolResults(b.id))[0]).toMatch(/^ERROR scratch\/shared-name.md does not exist/);
  });
});
