/**
 * The task Durable Object: one per task, addressed by the task id. Its RPC methods are the
 * task's whole protocol surface (create, follow-up, get, wait, cancel, subscribe); its alarm
 * drives the agent loop one model turn per step, so the task outlives the request that started it
 * and survives restarts. Client mistakes come back as TaskResult errors; nothing a client sends
 * can throw in here. State and shared operations live in {@link TaskRuntime}.
 */
import { DurableObject } from "cloudflare:workers";
import { refreshAgents } from "../agents/overrides.ts";
import { ownerMatches, requireConcreteOwner } from "../auth/anonymous.ts";
import { loadConfig } from "../config/config.ts";
import { formAnswerProblem, formOf } from "../loop/form-answer.ts";
import { modelSourceLabel } from "../model/client.ts";
import { meteredEnv } from "../platform/storage-meter.ts";
import type { Message, Task } from "../protocol/wire.ts";
import { type PushAnswer, type PushCall, runPushCall } from "../push/push-calls.ts";
import { PUSH_JOB } from "../push/push-sender.ts";
import { CANCEL_CHILDREN_JOB, PARENT_REPORT_JOB, POLL_REMOTE_JOB } from "./child-tasks.ts";
import { JOIN_JOB, REGISTER_JOB, RELEASE_JOB } from "./context-membership.ts";
import { LoopDriver } from "./loop-driver.ts";
import type {
  ChildProgressInput,
  ChildReportInput,
  CreateTaskInput,
  FollowUpInput,
  SendOutcome,
  SubscribeInput,
  TaskErrorKind,
  TaskResult,
} from "./rpc-types.ts";
import { migrate } from "./schema.ts";
import { canTransition, isSettled, isTerminal } from "./state-machine.ts";
import { RETENTION_JOB, TaskRuntime } from "./task-runtime.ts";

const fail = <T>(kind: TaskErrorKind, message: string): TaskResult<T> => ({
  ok: false,
  error: { kind, message },
});
const ok = <T>(value: T): TaskResult<T> => ({ ok: true, value });
const NOT_FOUND = "task not found";
const WAITING_TEXT = "Waiting for the previous task in this conversation to finish.";

/** A task's Durable Object. */
export class TaskObject extends DurableObject<Env> {
  runtime!: TaskRuntime;
  #driver!: LoopDriver;

  constructor(ctx: DurableObjectState, rawEnv: Env) {
    const env = meteredEnv(rawEnv);
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      migrate(ctx.storage.sql);
      this.runtime = new TaskRuntime(ctx, env);
      this.#driver = new LoopDriver(this.runtime, env);
      await this.#recover();
    });
  }

  /** Starts a new task with its first message; optionally returns its stream from event 1. */
  async create(
    input: CreateTaskInput,
    options: { stream: boolean },
  ): Promise<TaskResult<SendOutcome>> {
    await refreshAgents(this.env);
    const rt = this.runtime;
    const existing = rt.store.record;
    if (existing) {
      // A retried create (the Worker saw the object reset) gets the task it already made.
      if (existing.id !== input.taskId || existing.owner !== input.owner)
        return fail("not_found", NOT_FOUND);
      const stream = options.stream
        ? rt.subscribers.open(rt.log.after(0), isSettled(existing.state))
        : null;
      return ok({ task: rt.snapshot(), stream });
    }
    const agent = rt.agent(input.agent);
    const now = new Date().toISOString();
    const message: Message = { ...input.message, taskId: input.taskId, contextId: input.contextId };
    rt.transaction(() => {
      rt.store.insert({
        id: input.taskId,
        contextId: input.contextId,
        agent: agent.name,
        owner: requireConcreteOwner(input.owner),
        counters: input.counters ?? null,
        traceId: input.traceId,
        parentTaskId: input.parent?.parentTaskId ?? null,
        state: "TASK_STATE_SUBMITTED",
        status: { state: "TASK_STATE_SUBMITTED", timestamp: now },
        metadata: {
          owner: input.owner,
          traceId: input.traceId,
          agent: agent.name,
          model: { name: agent.model, source: modelSourceLabel(loadConfig(this.env)) },
          ...(input.requestMetadata ? { request: input.requestMetadata } : {}),
          ...(input.parent ?? {}),
          ...(input.remoteParent
            ? {
                remoteParent: {
                  taskId: input.remoteParent.taskId,
                  agent: input.remoteParent.agent,
                },
                rootTaskId: input.remoteParent.rootTaskId,
              }
            : {}),
        },
        createdAt: now,
      });
      rt.store.markSeen(message.messageId);
      rt.store.appendHistory(message);
      rt.log.append({ task: rt.snapshot() });
      if (input.pushConfig)
        runPushCall(rt.push, input.taskId, {
          op: "create",
          owner: input.owner,
          config: input.pushConfig,
        });
    });
    await this.#enter(input.freshContext === true);
    const task = rt.snapshot();
    const stream = options.stream
      ? rt.subscribers.open(rt.log.after(0), isSettled(task.status.state))
      : null;
    return ok({ task, stream });
  }

  /** A further message for this task: resumes a task waiting for input. */
  async followUp(
    input: FollowUpInput,
    options: { stream: boolean },
  ): Promise<TaskResult<SendOutcome>> {
    const rt = this.runtime;
    const record = rt.store.record;
    if (!record || !ownerMatches(record.owner, input.owner)) return fail("not_found", NOT_FOUND);
    if (input.message.contextId && input.message.contextId !== record.contextId) {
      return fail(
        "context_mismatch",
        `task ${record.id} belongs to context ${record.contextId}, not ${input.message.contextId}`,
      );
    }
    if (rt.agent(record.agent).dedupeMessages && rt.store.hasSeen(input.message.messageId)) {
      // A resent follow-up: answer with the task as it is, apply nothing twice.
      const stream = options.stream
        ? rt.subscribers.open(
            [{ seq: rt.log.lastSeq, event: { task: rt.snapshot() } }],
            isSettled(record.state),
          )
        : null;
      return ok({ task: rt.snapshot(), stream });
    }
    if (isTerminal(record.state)) {
      return fail(
        "terminal",
        `task ${record.id} has ended (${record.state}) and accepts no further messages`,
      );
    }
    if (!canTransition(record.state, "TASK_STATE_WORKING")) {
      return fail(
        "busy",
        `task ${record.id} is still working; wait for it to finish or cancel it before sending another message`,
      );
    }
    const problem = this.#answerProblem(input.message);
    if (problem) return fail("invalid", problem);
    const message: Message = { ...input.message, taskId: record.id, contextId: record.contextId };
    rt.transaction(() => {
      rt.store.markSeen(message.messageId);
      rt.store.appendHistory(message);
      if (input.pushConfig)
        runPushCall(rt.push, record.id, {
          op: "create",
          owner: input.owner,
          config: input.pushConfig,
        });
    });
    rt.setStatus("TASK_STATE_SUBMITTED");
    await this.#enter();
    const stream = options.stream
      ? rt.subscribers.open([{ seq: rt.log.lastSeq, event: { task: rt.snapshot() } }], false)
      : null;
    return ok({ task: rt.snapshot(), stream });
  }

  /** Called by the task's conversation when this queued task's turn has come. */
  async activate(): Promise<void> {
    const rt = this.runtime;
    if (
      rt.store.record?.state === "TASK_STATE_SUBMITTED" &&
      rt.contextLink.get().state !== "active"
    ) {
      await this.#enter();
    }
  }

  /** The task as it is now. */
  async get(input: { owner: string; historyLength?: number }): Promise<TaskResult<Task>> {
    const record = this.runtime.store.record;
    if (!record || !ownerMatches(record.owner, input.owner)) return fail("not_found", NOT_FOUND);
    return ok(this.runtime.snapshot(input.historyLength));
  }

  /** The task's event log with times, for the inspector (owner only; `owner: null` = admin). */
  async timeline(input: {
    owner: string | null;
  }): Promise<TaskResult<ReturnType<TaskRuntime["log"]["timeline"]>>> {
    const record = this.runtime.store.record;
    if (!record || (input.owner !== null && !ownerMatches(record.owner, input.owner)))
      return fail("not_found", NOT_FOUND);
    return ok(this.runtime.log.timeline());
  }

  /** Resolves once the task ends or waits for input. */
  async waitSettled(input: { owner: string; historyLength?: number }): Promise<TaskResult<Task>> {
    const record = this.runtime.store.record;
    if (!record || !ownerMatches(record.owner, input.owner)) return fail("not_found", NOT_FOUND);
    const loop = this.runtime.scheduler.get("loop");
    if (loop && loop.dueAt <= Date.now() && !this.#driver.running)
      this.ctx.waitUntil(this.#driver.step());
    await this.runtime.settled();
    return ok(this.runtime.snapshot(input.historyLength));
  }

  /** Push notification configs of the task and its delivery record (owner only; admins read). */
  async push(call: PushCall): Promise<TaskResult<PushAnswer>> {
    const record = this.runtime.store.record;
    if (!record || (call.owner !== null && !ownerMatches(record.owner, call.owner)))
      return fail("not_found", NOT_FOUND);
    const answer = runPushCall(this.runtime.push, record.id, call);
    return "refused" in answer ? fail(answer.refused, answer.message) : ok(answer);
  }

  /** Cancels the task: stops the loop; no model call starts after this returns. */
  async cancel(input: { owner: string }): Promise<TaskResult<Task>> {
    const rt = this.runtime;
    const record = rt.store.record;
    if (!record || !ownerMatches(record.owner, input.owner)) return fail("not_found", NOT_FOUND);
    if (isTerminal(record.state))
      return fail("not_cancelable", `task ${record.id} has already ended (${record.state})`);
    this.#driver.stop();
    rt.keepPartialAnswer();
    rt.setStatus("TASK_STATE_CANCELED", {
      text: record.parentTaskId ? "Canceled." : "Canceled at the client's request.",
    });
    await rt.scheduler.cancel("loop");
    // Cancelling a task cancels the sub-agents it started (retried from the schedule).
    if (rt.children.all().length > 0) {
      await rt.scheduler.schedule(CANCEL_CHILDREN_JOB, "context", Date.now());
      this.ctx.waitUntil(rt.childTasks.cancelChildren());
    }
    return ok(rt.snapshot());
  }

  /**
   * Erases the task: cancels it if it is still going (and its sub-agents), deletes its R2 objects
   * (artifacts, the scratchpad of a root task) and all of its storage. For session deletion,
   * privacy erasure and retention. False when the task is not the owner's.
   */
  async erase(input: { owner: string | null }): Promise<boolean> {
    const rt = this.runtime;
    const record = rt.store.record;
    if (!record) return true;
    if (input.owner !== null && !ownerMatches(record.owner, input.owner)) return false;
    if (!isTerminal(record.state)) await this.cancel({ owner: record.owner });
    // A copy of the answer still on its way to R2 would outlive the erasure.
    await rt.outbox.idle();
    let cursor: string | undefined;
    do {
      const page = await this.env.FILES.list({ prefix: `tasks/${record.id}/`, cursor });
      if (page.objects.length > 0) await this.env.FILES.delete(page.objects.map((o) => o.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    this.#driver.stop();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    migrate(this.ctx.storage.sql);
    this.runtime = new TaskRuntime(this.ctx, this.env);
    this.#driver = new LoopDriver(this.runtime, this.env);
    return true;
  }

  /** A sub-agent's task this task started reports that it settled (retried by the child). */
  async childReport(input: ChildReportInput): Promise<void> {
    const rt = this.runtime;
    const record = rt.store.record;
    if (!record || record.owner !== input.owner || !rt.children.get(input.childTaskId)) return;
    rt.childTasks.onReport(input.childTaskId, input.report);
    if (rt.childTasks.settleWait(input.childTaskId) === "resume")
      await rt.scheduler.schedule("loop", "loop", Date.now());
  }

  /** A sub-agent's progress, shown on this task's stream. */
  async childProgress(input: ChildProgressInput): Promise<void> {
    const rt = this.runtime;
    const record = rt.store.record;
    if (!record || record.owner !== input.owner || !rt.children.get(input.childTaskId)) return;
    rt.childTasks.onProgress(input.childTaskId, input.agent, input.text);
  }

  /**
   * A live stream of the task's events. `after: null` starts with the current Task (refused for
   * an ended task); `after: n` replays what followed event n, then continues live.
   */
  async subscribe(input: SubscribeInput): Promise<TaskResult<ReadableStream<Uint8Array>>> {
    const rt = this.runtime;
    const record = rt.store.record;
    if (!record || !ownerMatches(record.owner, input.owner)) return fail("not_found", NOT_FOUND);
    if (input.after !== null)
      return ok(rt.subscribers.open(rt.log.after(input.after), isTerminal(record.state)));
    if (isTerminal(record.state))
      return fail("terminal", `task ${record.id} has ended (${record.state}); use GetTask`);
    return ok(
      rt.subscribers.open([{ seq: rt.log.lastSeq, event: { task: rt.snapshot() } }], false),
    );
  }

  /** Runs whatever the schedule says is due: loop steps, outbox retries. */
  override async alarm(): Promise<void> {
    await refreshAgents(this.env);
    const { scheduler, outbox } = this.runtime;
    for (const entry of scheduler.due(Date.now())) {
      try {
        if (entry.kind === "loop") await this.#driver.step();
        else if (entry.id === PUSH_JOB) await this.runtime.pushSender.deliverDue();
        else if (entry.kind === "outbox") await outbox.retry(entry.id);
        else if (entry.id === JOIN_JOB) await this.activate();
        else if (entry.id === RELEASE_JOB) await this.runtime.membership.release();
        else if (entry.id === REGISTER_JOB) await this.runtime.membership.register();
        else if (entry.id === PARENT_REPORT_JOB) await this.runtime.childTasks.reportToParent();
        else if (entry.id === CANCEL_CHILDREN_JOB) await this.runtime.childTasks.cancelChildren();
        else if (entry.id === RETENTION_JOB) {
          // Past RETENTION_DAYS: the task deletes its own data, then has nothing left to do.
          await this.erase({ owner: null });
          return;
        } else if (entry.id === POLL_REMOTE_JOB) {
          if (await this.runtime.childTasks.pollRemote())
            await this.runtime.scheduler.schedule("loop", "loop", Date.now());
        } else await scheduler.cancel(entry.id);
      } catch (error) {
        console.error(
          JSON.stringify({
            level: "error",
            msg: "alarm job failed",
            job: entry.id,
            error: String(error),
          }),
        );
      }
    }
    await scheduler.arm();
  }

  /**
   * Joins the conversation: holding it, the task starts working; queued, it waits (submitted)
   * until the conversation activates it; if the call failed, the join is retried from the alarm.
   * A conversation the server has just opened is held at once (registered in the background).
   */
  async #enter(freshContext = false): Promise<void> {
    const rt = this.runtime;
    if (freshContext) {
      // One transaction: the conversation, the working status and the first step.
      rt.transaction(() => {
        rt.membership.claimFresh();
        rt.setStatus("TASK_STATE_WORKING");
        rt.scheduler.put("loop", "loop", Date.now());
      });
      await rt.scheduler.arm();
      this.ctx.waitUntil(rt.membership.startRegistration());
      return;
    }
    const outcome = await rt.membership.join();
    if (outcome === "active") {
      rt.setStatus("TASK_STATE_WORKING");
      await rt.scheduler.schedule("loop", "loop", Date.now());
    } else if (outcome === "waiting") {
      rt.setStatus("TASK_STATE_SUBMITTED", { text: WAITING_TEXT });
    }
  }

  /** Why a message does not answer the form the task waits on (null when it does, or none). */
  #answerProblem(message: Message): string | null {
    const pending = this.runtime.pending.get();
    if (!pending || pending.resolution) return null;
    const form = formOf(pending.waiting, (id) => this.runtime.children.get(id)?.report?.question);
    return form ? formAnswerProblem(form, message.parts) : null;
  }

  /** After a restart: a task left in flight resumes now (no step of a fresh instance is running). */
  async #recover(): Promise<void> {
    const rt = this.runtime;
    const record = rt.store.record;
    const link = rt.contextLink.get().state;
    if (record?.state === "TASK_STATE_SUBMITTED" && link === "none") {
      // It died before joining its conversation: join now (from the alarm).
      await rt.scheduler.schedule(JOIN_JOB, "context", Date.now());
      return;
    }
    if (
      record &&
      isSettled(record.state) &&
      (link === "active" || link === "waiting") &&
      !rt.scheduler.get(RELEASE_JOB)
    ) {
      await rt.scheduler.schedule(RELEASE_JOB, "context", Date.now());
      return;
    }
    if (rt.childTasks.reportOwed() && !rt.scheduler.get(PARENT_REPORT_JOB))
      await rt.scheduler.schedule(PARENT_REPORT_JOB, "context", Date.now());
    const working = record?.state === "TASK_STATE_WORKING";
    if (working && (rt.loopState.get().attempt === 0 || !rt.scheduler.get("loop"))) {
      await rt.scheduler.schedule("loop", "loop", Date.now());
      return;
    }
    await rt.scheduler.arm();
  }
}
