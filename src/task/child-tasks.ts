/**
 * Both ends of a delegation, inside a task object. As a parent: the `Subagents` handle the `task`
 * tool uses, what to do with each child's report (resume the waiting call when the child ends,
 * pass its question up to our caller when it asks, add its usage to ours), relaying its progress,
 * and cancelling children. As a child: reporting to the parent each time the task settles, from
 * the schedule so the report survives restarts and is retried until the parent has it.
 */
import type { Part } from "../a2a/wire.ts";
import { loadConfig } from "../config.ts";
import { backoffMs } from "../model/errors.ts";
import { answerLocalChild, cancelLocalChild, startLocalChild } from "../subagents/local.ts";
import { subagentTypes } from "../subagents/registry.ts";
import type { Subagents } from "../subagents/types.ts";
import type { ChildReport } from "./children.ts";
import { lineageOf } from "./lineage.ts";
import { EMPTY_USAGE, sumUsage, type Usage } from "./loop-state.ts";
import { isSettled, isTerminal } from "./state-machine.ts";
import type { TaskObject } from "./task-object.ts";
import type { TaskRuntime } from "./task-runtime.ts";

/** Schedule ids of the retried jobs. */
export const PARENT_REPORT_JOB = "parent:report";
export const CANCEL_CHILDREN_JOB = "children:cancel";

const minus = (a: Usage, b: Usage | null): Usage => ({
  inputTokens: a.inputTokens - (b?.inputTokens ?? 0),
  outputTokens: a.outputTokens - (b?.outputTokens ?? 0),
  cacheReadTokens: a.cacheReadTokens - (b?.cacheReadTokens ?? 0),
  cacheWriteTokens: a.cacheWriteTokens - (b?.cacheWriteTokens ?? 0),
  modelCalls: a.modelCalls - (b?.modelCalls ?? 0),
});

/** Delegation for one task object. */
export class ChildTasks {
  readonly #rt: TaskRuntime;
  readonly #env: Env;

  constructor(rt: TaskRuntime, env: Env) {
    this.#rt = rt;
    this.#env = env;
  }

  get #tasks(): DurableObjectNamespace<TaskObject> {
    return this.#env.TASKS as unknown as DurableObjectNamespace<TaskObject>;
  }

  /** The sub-agent handle for this task's tools. */
  subagents(): Subagents {
    const rt = this.#rt;
    const record = rt.store.record;
    if (!record) throw new Error("no task");
    const lineage = lineageOf(record);
    const isChild = record.parentTaskId !== null;
    const types = () =>
      isChild ? [] : subagentTypes(loadConfig(this.#env)).filter((t) => t.name !== record.agent);
    return {
      types,
      start: async (call) => {
        const type = types().find((t) => t.name === call.agent);
        if (!type) {
          const known = types()
            .map((t) => t.name)
            .join(", ");
          return {
            ok: false,
            error: `unknown sub-agent type "${call.agent}"; available: ${known || "none"}`,
          };
        }
        const started = await startLocalChild(
          this.#tasks,
          {
            taskId: record.id,
            owner: record.owner,
            traceId: record.traceId,
            lineage: {
              parentTaskId: record.id,
              rootTaskId: lineage.rootTaskId,
              rootAgent: lineage.rootAgent,
            },
          },
          call,
        );
        if (started.ok) {
          rt.children.add(started.childTaskId, call.agent, type.transport);
          rt.emitHarnessEvent({
            kind: "subagent",
            text: `Agent ${call.agent} started: ${call.description}`,
            tool: "task",
            detail: { childTaskId: started.childTaskId, agent: call.agent, state: "started" },
          });
        }
        return started;
      },
      answer: async (childTaskId: string, parts: Part[]) => {
        const child = rt.children.get(childTaskId);
        await answerLocalChild(this.#tasks, record.owner, childTaskId, parts);
        if (child?.report) rt.children.markAnswered(childTaskId, child.report.version);
      },
      cancel: (childTaskId: string) => cancelLocalChild(this.#tasks, record.owner, childTaskId),
    };
  }

  /** A child's report arrived: record it, count its usage, and act on it if the loop waits on it. */
  onReport(childTaskId: string, report: ChildReport): void {
    const rt = this.#rt;
    rt.transaction(() => {
      if (!rt.children.report(childTaskId, report)) return;
      const child = rt.children.get(childTaskId);
      if (!child) return;
      const delta = minus(report.usage, child.countedUsage);
      rt.loopState.patch({ usage: sumUsage(rt.loopState.get().usage, delta) });
      rt.children.setCountedUsage(childTaskId, report.usage);
      const state = report.state.replace("TASK_STATE_", "").toLowerCase().replace("_", "-");
      rt.emitHarnessEvent({
        kind: "subagent",
        text: `Agent ${child.agent} ${state === "input-required" ? "needs input" : state}`,
        tool: "task",
        detail: { childTaskId, agent: child.agent, state },
      });
    });
  }

  /**
   * If the loop waits on `childTaskId`: resume it when the child ended (true: schedule the loop),
   * or pass the child's new question up to our caller (the task waits for input).
   */
  settleWait(childTaskId: string): "resume" | "asked" | "waiting" {
    const rt = this.#rt;
    const pending = rt.pending.get();
    if (
      !pending ||
      pending.resolution ||
      pending.waiting.kind !== "child" ||
      pending.waiting.childTaskId !== childTaskId
    )
      return "waiting";
    const child = rt.children.get(childTaskId);
    const report = child?.report;
    if (!child || !report) return "waiting";
    if (isTerminal(report.state)) {
      rt.pending.resolve({ kind: "child", state: report.state, text: report.text });
      return "resume";
    }
    if (
      isSettled(report.state) &&
      report.version > child.answeredVersion &&
      rt.store.record?.state === "TASK_STATE_WORKING"
    ) {
      const question = report.question ?? [{ text: `${child.agent} needs your input.` }];
      const message = rt.agentMessage([
        { text: `The ${child.agent} sub-agent asks:` },
        ...question,
      ]);
      rt.transaction(() => rt.store.appendHistory(message));
      rt.setStatus("TASK_STATE_INPUT_REQUIRED", { message });
      return "asked";
    }
    return "waiting";
  }

  /** Relays a child's progress onto this task's stream. */
  onProgress(childTaskId: string, agent: string, text: string): void {
    this.#rt.emitHarnessEvent({
      kind: "subagent",
      text: `${agent}: ${text}`,
      tool: "task",
      detail: { childTaskId, agent },
    });
  }

  /** Cancels every child that has not ended; failures are retried from the schedule. */
  async cancelChildren(): Promise<void> {
    const rt = this.#rt;
    const record = rt.store.record;
    if (!record) return;
    const open = rt.children.all().filter((c) => !c.report || !isTerminal(c.report.state));
    let failed = 0;
    for (const child of open) {
      try {
        await cancelLocalChild(this.#tasks, record.owner, child.id);
        rt.children.report(child.id, {
          state: "TASK_STATE_CANCELED",
          text: "Canceled with its parent.",
          usage: child.report?.usage ?? child.countedUsage ?? EMPTY_USAGE,
          version: Number.MAX_SAFE_INTEGER,
        });
      } catch {
        failed += 1;
      }
    }
    if (failed > 0) await this.#retry(CANCEL_CHILDREN_JOB);
    else if (rt.scheduler.get(CANCEL_CHILDREN_JOB)) await rt.scheduler.cancel(CANCEL_CHILDREN_JOB);
  }

  /** As a child: schedule a report to the parent (the task just settled). */
  async scheduleReport(): Promise<void> {
    if (this.#rt.store.record?.parentTaskId)
      await this.#rt.scheduler.schedule(PARENT_REPORT_JOB, "context", Date.now());
  }

  /** As a child: sends the current report to the parent; retried until it arrives. */
  async reportToParent(): Promise<void> {
    const rt = this.#rt;
    const record = rt.store.record;
    if (!record?.parentTaskId) return;
    const loop = rt.loopState.get();
    const waiting =
      record.state === "TASK_STATE_INPUT_REQUIRED" || record.state === "TASK_STATE_AUTH_REQUIRED";
    const report: ChildReport = {
      state: record.state,
      text:
        record.state === "TASK_STATE_COMPLETED"
          ? loop.answerText.trim()
          : (record.status.message?.parts.map((p) => p.text ?? "").join("\n") ?? ""),
      ...(waiting && record.status.message ? { question: record.status.message.parts } : {}),
      usage: loop.usage,
      version: record.version,
    };
    try {
      const parent = this.#tasks.get(this.#tasks.idFromName(record.parentTaskId));
      await parent.childReport({ owner: record.owner, childTaskId: record.id, report });
    } catch (error) {
      console.warn(
        JSON.stringify({
          level: "warn",
          msg: "parent report retry",
          task: record.id,
          error: String(error),
        }),
      );
      await this.#retry(PARENT_REPORT_JOB);
      return;
    }
    rt.hookState.set("lineage", "reportedVersion", report.version);
    if (rt.scheduler.get(PARENT_REPORT_JOB)) await rt.scheduler.cancel(PARENT_REPORT_JOB);
  }

  /** As a child after a restart: whether the parent may not have the latest report. */
  reportOwed(): boolean {
    const record = this.#rt.store.record;
    if (!record?.parentTaskId || !isSettled(record.state)) return false;
    return (this.#rt.hookState.get<number>("lineage", "reportedVersion") ?? 0) < record.version;
  }

  /** As a child: relays a harness event to the parent's stream (best effort, not retried). */
  async relayProgress(text: string): Promise<void> {
    const record = this.#rt.store.record;
    if (!record?.parentTaskId) return;
    const parent = this.#tasks.get(this.#tasks.idFromName(record.parentTaskId));
    await parent.childProgress({
      owner: record.owner,
      childTaskId: record.id,
      agent: record.agent,
      text,
    });
  }

  async #retry(job: string): Promise<void> {
    const attempts = (this.#rt.scheduler.get(job)?.attempts ?? 0) + 1;
    await this.#rt.scheduler.schedule(
      job,
      "context",
      Date.now() + backoffMs(Math.min(attempts, 8), 200),
      { attempts },
    );
  }
}
