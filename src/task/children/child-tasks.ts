/**
 * The parent's end of a delegation, inside a task object: the `Subagents` handle the `task` tool
 * uses, what to do with each child's report (resume the waiting call when the child ends, pass
 * its question up to our caller when it asks, add its usage to ours), polling remote children,
 * relaying their progress, and cancelling children. The child's end is parent-report.ts.
 */
import { loadConfig } from "../../config/config.ts";
import type { Subagents, SubagentType } from "../../loop/contracts.ts";
import { EMPTY_USAGE, sumUsage, type Usage } from "../../model/usage.ts";
import { log } from "../../platform/logging.ts";
import { isSettled, isTerminal, stateWord, taskStateOf } from "../../protocol/task-states.ts";
import type { Part } from "../../protocol/wire.ts";
import { callableTypes, type Delegator, transportFor } from "../../subagents/reach.ts";
import type { ChildTransport, LocalTransportFor, PolledChild } from "../../subagents/transport.ts";
import { freshBudget } from "../../users/limits.ts";
import type { EventSink, StatusWriter } from "../runtime/status-change.ts";
import type { TaskState } from "../runtime/task-state.ts";
import type { ChildReport } from "../store/children.ts";
import { lineageOf, remoteParentOf, scratchIdOf } from "../store/lineage.ts";

/** Schedule ids of the retried jobs. */
export const CANCEL_CHILDREN_JOB = "children:cancel";
export const POLL_REMOTE_JOB = "children:poll";

const minus = (a: Usage, b: Usage | null): Usage => ({
  inputTokens: a.inputTokens - (b?.inputTokens ?? 0),
  outputTokens: a.outputTokens - (b?.outputTokens ?? 0),
  cacheReadTokens: a.cacheReadTokens - (b?.cacheReadTokens ?? 0),
  cacheWriteTokens: a.cacheWriteTokens - (b?.cacheWriteTokens ?? 0),
  modelCalls: a.modelCalls - (b?.modelCalls ?? 0),
});

/** What delegation reads and changes in the task. */
export type DelegatingTask = Pick<
  TaskState,
  "unit" | "store" | "children" | "pending" | "loopState" | "scheduler" | "budgetHint"
> &
  StatusWriter &
  Pick<EventSink, "emitHarnessEvent">;

/** Delegation for one task object. */
export class ChildTasks {
  readonly #task: DelegatingTask;
  readonly #env: Env;
  readonly #local: LocalTransportFor;

  /** `local`: the transport of local children (the task gateway's, see worker.ts). */
  constructor(task: DelegatingTask, env: Env, local: LocalTransportFor) {
    this.#task = task;
    this.#env = env;
    this.#local = local;
  }

  #delegator(): Delegator {
    const record = this.#task.store.record;
    if (!record) throw new Error("no task");
    const isSubagent = record.parentTaskId !== null || remoteParentOf(record) !== null;
    return {
      owner: record.owner,
      agent: record.agent,
      counters: record.counters,
      traceId: record.traceId,
      isSubagent,
      task: record,
    };
  }

  /** The transport a child runs on: `local`, or the registry name of its remote agent. */
  #transport(name: string): ChildTransport {
    return transportFor(this.#env, loadConfig(this.#env), this.#delegator(), name, this.#local);
  }

  /** The sub-agent types this task may call: none for a sub-agent, never itself, within the rules. */
  types(): SubagentType[] {
    if (!this.#task.store.record) return [];
    return callableTypes(loadConfig(this.#env), this.#delegator());
  }

  /** The sub-agent handle for this task's tools. */
  subagents(): Subagents {
    const task = this.#task;
    const record = task.store.record;
    if (!record) throw new Error("no task");
    const lineage = lineageOf(record);
    return {
      types: () => this.types(),
      start: async (call) => {
        const type = this.types().find((t) => t.name === call.agent);
        if (!type) {
          const known = this.types()
            .map((t) => t.name)
            .join(", ");
          return {
            ok: false,
            error: `unknown sub-agent type "${call.agent}"; available: ${known || "none"}`,
          };
        }
        const started = await this.#transport(type.transport).start(
          {
            taskId: record.id,
            agent: record.agent,
            owner: record.owner,
            counters: record.counters,
            ...freshBudget(this.#task.budgetHint),
            traceId: record.traceId,
            lineage: {
              parentTaskId: record.id,
              rootTaskId: lineage.rootTaskId,
              rootAgent: lineage.rootAgent,
              scratchId: await scratchIdOf(record),
            },
          },
          call,
        );
        if (started.ok) {
          task.children.add(started.childTaskId, call.agent, type.transport);
          task.emitHarnessEvent({
            kind: "subagent",
            text: `Agent ${call.agent} started${type.transport === "local" ? "" : " (remote)"}: ${call.description}`,
            tool: "task",
            detail: {
              childTaskId: started.childTaskId,
              agent: call.agent,
              state: "started",
              transport: type.transport,
            },
          });
          if (type.transport !== "local") await this.schedulePoll(0);
        }
        return started;
      },
      answer: async (childTaskId: string, parts: Part[]) => {
        const child = task.children.get(childTaskId);
        if (!child) throw new Error(`no child ${childTaskId}`);
        await this.#transport(child.transport).answer(childTaskId, parts, child.agent);
        if (child.report) task.children.markAnswered(childTaskId, child.report.version);
        if (child.transport !== "local") await this.schedulePoll(0);
      },
      cancel: async (childTaskId: string) => {
        const child = task.children.get(childTaskId);
        if (child) await this.#transport(child.transport).cancel(childTaskId, child.agent);
      },
    };
  }

  /**
   * Schedules the next poll of remote children: 100 ms after a change, then doubling to 5 s, so
   * short remote work is seen quickly and long work costs few requests.
   */
  async schedulePoll(attempt: number): Promise<void> {
    const delay = Math.min(100 * 2 ** attempt, 5_000);
    await this.#task.scheduler.schedule(POLL_REMOTE_JOB, "context", Date.now() + delay, {
      attempts: attempt,
    });
  }

  /**
   * Polls the remote children that have not ended; a changed state becomes a report, as a local
   * child would send. Returns whether the loop should resume.
   */
  async pollRemote(): Promise<boolean> {
    const task = this.#task;
    const open = task.children
      .all()
      .filter((c) => c.transport !== "local" && (!c.report || !isTerminal(c.report.state)));
    let resume = false;
    for (const child of open) {
      let polled: PolledChild;
      try {
        const transport = this.#transport(child.transport);
        if (!transport.poll) continue;
        polled = await transport.poll(child.id);
      } catch (error) {
        log("warn", "remote child poll failed", { child: child.id, error: String(error) });
        continue;
      }
      const last = child.report;
      if (last && last.state === polled.state && last.text === polled.text) continue;
      // A Message answer is the child's whole answer: it completed.
      const state = polled.state === "MESSAGE" ? "TASK_STATE_COMPLETED" : taskStateOf(polled.state);
      if (!state || !isSettled(state)) continue;
      this.onReport(child.id, {
        state,
        text: polled.text,
        ...(polled.question ? { question: polled.question } : {}),
        usage: child.countedUsage ?? EMPTY_USAGE,
        version: (last?.version ?? 0) + 1,
      });
      if (this.settleWait(child.id) === "resume") resume = true;
    }
    const stillOpen = task.children
      .all()
      .some((c) => c.transport !== "local" && (!c.report || !isTerminal(c.report.state)));
    if (stillOpen && !isTerminal(task.store.record?.state ?? "TASK_STATE_COMPLETED")) {
      const attempts = task.scheduler.get(POLL_REMOTE_JOB)?.attempts ?? 0;
      await this.schedulePoll(attempts + 1);
    } else {
      await task.scheduler.done(POLL_REMOTE_JOB);
    }
    return resume;
  }

  /** A child's report arrived: record it, count its usage, and act on it if the loop waits on it. */
  onReport(childTaskId: string, report: ChildReport): void {
    const task = this.#task;
    task.unit.run(() => {
      if (!task.children.report(childTaskId, report)) return;
      const child = task.children.get(childTaskId);
      if (!child) return;
      const delta = minus(report.usage, child.countedUsage);
      task.loopState.patch({ usage: sumUsage(task.loopState.get().usage, delta) });
      task.children.setCountedUsage(childTaskId, report.usage);
      const state = stateWord(report.state);
      task.emitHarnessEvent({
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
    const task = this.#task;
    const pending = task.pending.get();
    if (
      !pending ||
      pending.resolution ||
      pending.waiting.kind !== "child" ||
      pending.waiting.childTaskId !== childTaskId
    )
      return "waiting";
    const child = task.children.get(childTaskId);
    const report = child?.report;
    if (!child || !report) return "waiting";
    if (isTerminal(report.state)) {
      task.pending.resolve({ kind: "child", state: report.state, text: report.text });
      return "resume";
    }
    if (
      isSettled(report.state) &&
      report.version > child.answeredVersion &&
      task.store.record?.state === "TASK_STATE_WORKING"
    ) {
      // A child that needs the user's authorization pauses us the same way (auth-required).
      const auth = report.state === "TASK_STATE_AUTH_REQUIRED";
      const question = report.question ?? [
        { text: `${child.agent} needs your ${auth ? "authorization" : "input"}.` },
      ];
      const message = task.agentMessage([
        { text: `The ${child.agent} sub-agent ${auth ? "needs your authorization" : "asks"}:` },
        ...question,
      ]);
      task.unit.run(() => task.store.appendHistory(message));
      task.setStatus(auth ? "TASK_STATE_AUTH_REQUIRED" : "TASK_STATE_INPUT_REQUIRED", { message });
      return "asked";
    }
    return "waiting";
  }

  /** Relays a child's progress onto this task's stream. */
  onProgress(childTaskId: string, agent: string, text: string): void {
    this.#task.emitHarnessEvent({
      kind: "subagent",
      text: `${agent}: ${text}`,
      tool: "task",
      detail: { childTaskId, agent },
    });
  }

  /** Cancels every child that has not ended; failures are retried from the schedule. */
  async cancelChildren(): Promise<void> {
    const task = this.#task;
    const record = task.store.record;
    if (!record) return;
    const open = task.children.all().filter((c) => !c.report || !isTerminal(c.report.state));
    let failed = 0;
    for (const child of open) {
      try {
        await this.#transport(child.transport).cancel(child.id, child.agent);
        task.children.report(child.id, {
          state: "TASK_STATE_CANCELED",
          text: "Canceled with its parent.",
          usage: child.report?.usage ?? child.countedUsage ?? EMPTY_USAGE,
          version: Number.MAX_SAFE_INTEGER,
        });
      } catch {
        failed += 1;
      }
    }
    if (failed > 0) await task.scheduler.retry(CANCEL_CHILDREN_JOB, "context");
    else await task.scheduler.done(CANCEL_CHILDREN_JOB);
  }
}
