/**
 * The task Durable Object, addressed by the task id. Its RPC methods are the task's whole protocol
 * surface (create, follow-up, get, wait, cancel, subscribe; its records: timeline, spans, push,
 * model requests);
 * its alarm drives the agent loop one model turn per step, so the task outlives the request that
 * started it and survives restarts. Client mistakes come back as TaskResult errors. State lives in
 * TaskState, status changes and events in {@link TaskRuntime}; task-parts.ts wires the parts and
 * holds the alarm's jobs. Only `create` writes to a new object (an unknown id: "not found").
 */

import { refreshAgents } from "../agents/overrides.ts";
import { ANONYMOUS_CALLER, isAnonymousOwner, ownerMatches } from "../auth/anonymous.ts";
import { loadConfig } from "../config/config.ts";
import type { Handover } from "../conversations/join.ts";
import { modelSourceLabel } from "../model/client.ts";
import { HarnessObject } from "../platform/harness-object.ts";
import { LIVE_MESSAGES_EXTENSION } from "../protocol/extensions.ts";
import { isSettled, isTerminal } from "../protocol/task-states.ts";
import type { Message, Task } from "../protocol/wire.ts";
import { type PushAnswer, type PushCall, runPushCall } from "../push/push-calls.ts";
import type { LocalTransportFor } from "../subagents/transport.ts";
import type { StoredModelRequest } from "../trace/model-requests.ts";
import { workspaceFor } from "../workspace/client.ts";
import { CANCEL_CHILDREN_JOB } from "./children/child-tasks.ts";
import { handOver } from "./conversation/handover.ts";
import { liveRefusal } from "./conversation/live-input.ts";
import { generationMismatch, movedPast, taskAnswer } from "./generation.ts";
import { acceptFollowUp, acceptLiveMessage, beginTask, followUpProblem } from "./incoming.ts";
import { saveMessageFiles } from "./message-files.ts";
import {
  type ChildProgressInput,
  type ChildReportInput,
  type CreateTaskInput,
  type FollowUpInput,
  type SendOutcome,
  type SubscribeInput,
  type TaskResult,
  taskFail,
  taskOk,
} from "./rpc-types.ts";
import { canTransition } from "./runtime/state-machine.ts";
import type { TaskRuntime } from "./runtime/task-runtime.ts";
import type { TimelineEntry } from "./store/event-log.ts";
import { lineageOf } from "./store/lineage.ts";
import {
  eraseStorage,
  jobFor,
  recover,
  runDueJobs,
  type TaskParts,
  wireTask,
} from "./task-parts.ts";
import { type TaskTraceAnswer, traceOfTask } from "./task-spans.ts";

const notFound = <T>(): TaskResult<T> => taskFail("not_found", "task not found");

/** A task's Durable Object. */
export class TaskObject extends HarnessObject {
  runtime!: TaskRuntime; // its state and status (tests read it with runInDurableObject too)
  #parts!: TaskParts;
  #jobFor!: ReturnType<typeof jobFor>;
  readonly #localChildren: LocalTransportFor;

  /**
   * `localChildren`: how the task reaches its local sub-agents, the task gateway's transport
   * (gateway/local-children.ts); the Worker's class (worker.ts) passes it, since the gateway
   * stands above the task objects.
   */
  constructor(ctx: DurableObjectState, rawEnv: Env, localChildren: LocalTransportFor) {
    super(ctx, rawEnv, "task");
    this.#localChildren = localChildren;
  }

  /** Opens the task's storage and resumes what a restart interrupted (a new object: nothing). */
  protected override async open(): Promise<void> {
    this.#wire();
    if (this.#parts.schema.stored) await recover(this.#parts);
  }

  /** (Re)builds the task's parts on its storage (see {@link wireTask}). */
  #wire(): void {
    this.#parts = wireTask(this.ctx, this.env, this.#localChildren);
    this.runtime = this.#parts.runtime;
    this.#jobFor = jobFor(this.#parts, {
      activate: () => this.activate(),
      erase: async () => void (await this.erase({ owner: null })),
    });
  }

  /**
   * Starts a new task with its first message and its first step; optionally returns its stream
   * from event 1, or (`wait`) answers once the task settles, with at most `historyLength`
   * messages: a blocking send in one call. `generation`: the task answered carries it.
   */
  async create(
    input: CreateTaskInput,
    options: { stream: boolean; wait?: boolean; historyLength?: number; generation?: boolean },
  ): Promise<TaskResult<SendOutcome>> {
    await refreshAgents(this.env, (work) => this.ctx.waitUntil(work));
    const rt = this.runtime;
    const root = input.parent?.rootAgent ?? input.agent;
    const message = rt.store.record
      ? input.message
      : await this.#withFiles(input.message, root, input.owner, input.taskId);
    const existing = rt.store.record; // (read after the files: another create may have made it)
    if (existing) {
      // A retried create (the Worker saw the object reset) gets the task it already made.
      if (existing.id !== input.taskId || existing.owner !== input.owner) return notFound();
    } else {
      const agent = rt.agent(input.agent);
      const model = { name: agent.model, source: modelSourceLabel(loadConfig(this.env)) };
      // A caller waiting for the task (blocking, or on its stream) has its step start now, leased
      // from here; for the others (returnImmediately, a sub-agent) the alarm starts it.
      const { driver, membership } = this.#parts;
      const first = options.stream || options.wait ? driver.firstStepLease() : undefined;
      const fresh = input.freshContext === true;
      this.#parts.schema.ensure(); // the object's first write: its tables
      // One unit of work: the task, and holding a conversation the server just opened (the
      // working status included).
      rt.unit.run(() => {
        beginTask(rt, { ...input, message }, agent.name, model);
        if (fresh) membership.holdFresh(first);
      });
      // The first model call's reservation, made beside the first step's reads (held-grant.ts).
      rt.grant.prepare(rt.store.record, message, agent.maxTokens, rt.budgetHint);
      await (fresh ? membership.announceHeld() : membership.enter(false, first));
      if (options.stream) driver.kick();
    }
    if (options.wait) {
      const task = await this.#settledTask(options.historyLength, options.generation);
      return taskOk({ task, stream: null });
    }
    const task = taskAnswer(rt, undefined, options.generation);
    const stream = options.stream
      ? rt.subscribers.open(rt.log.after(0), isSettled(task.status.state))
      : null;
    return taskOk({ task, stream });
  }

  /**
   * A further message for this task: resumes a task waiting for input. `generation`: the task
   * answered carries it; a message whose `ifGenerationMatch` is stale is refused.
   */
  async followUp(
    input: FollowUpInput,
    options: { stream: boolean; generation?: boolean },
  ): Promise<TaskResult<SendOutcome>> {
    const rt = this.runtime;
    const known = rt.store.record;
    if (!known || !ownerMatches(known.owner, input.owner)) return notFound();
    if (input.message.contextId && input.message.contextId !== known.contextId) {
      return taskFail(
        "context_mismatch",
        // Never the task's own contextId: for an anonymous caller it is the conversation's key.
        `task ${known.id} is not in context ${input.message.contextId}`,
      );
    }
    const root = lineageOf(known).rootAgent;
    const message = await this.#withFiles(input.message, root, known.owner, known.id);
    const record = rt.store.record; // (read after the files: the task may have moved on)
    if (!record) return notFound();
    if (rt.agent(record.agent).dedupeMessages && rt.store.hasSeen(input.message.messageId)) {
      // A resent follow-up: answer with the task as it is, apply nothing twice.
      const stream = options.stream ? this.#streamFromNow(isSettled(record.state)) : null;
      return taskOk({ task: taskAnswer(rt, undefined, options.generation), stream });
    }
    const stale = generationMismatch<SendOutcome>(rt, record.id, input.ifGenerationMatch);
    if (stale) return stale;
    if (isTerminal(record.state)) {
      return taskFail(
        "terminal",
        `task ${record.id} has ended (${record.state}) and accepts no further messages`,
      );
    }
    const taken = { ...input, message };
    if (input.live && record.state === "TASK_STATE_WORKING") return this.#queueLive(taken, options);
    if (!canTransition(record.state, "TASK_STATE_WORKING")) {
      return taskFail(
        "busy",
        `task ${record.id} is still working; wait for it to finish or cancel it before sending another message (or send it as a live message: ${LIVE_MESSAGES_EXTENSION})`,
      );
    }
    const problem = followUpProblem(rt, taken, loadConfig(this.env).maxPushConfigsPerTask);
    if (problem) return taskFail("invalid", problem);
    acceptFollowUp(rt, taken);
    rt.setStatus("TASK_STATE_SUBMITTED");
    await this.#parts.membership.enter();
    if (options.stream) this.#parts.driver.kick();
    const stream = options.stream ? this.#streamFromNow(false) : null;
    return taskOk({ task: taskAnswer(rt, undefined, options.generation), stream });
  }

  /**
   * A live message for the working task (live-input.ts): queued for its next model step and
   * answered at once with the task (and, for a stream, its events from now on).
   */
  #queueLive(
    input: FollowUpInput,
    options: { stream: boolean; generation?: boolean },
  ): TaskResult<SendOutcome> {
    const rt = this.runtime;
    const refused = liveRefusal(rt, input.message);
    if (refused) return taskFail(refused.kind, refused.message);
    const problem = followUpProblem(rt, input, loadConfig(this.env).maxPushConfigsPerTask);
    if (problem) return taskFail("invalid", problem);
    acceptLiveMessage(rt, input);
    const stream = options.stream ? this.#streamFromNow(false) : null;
    return taskOk({ task: taskAnswer(rt, undefined, options.generation), stream, queued: true });
  }

  /**
   * `message` with its file parts saved in the workspace of `agent` (the task's root agent) for
   * the task's owner, before the task takes it (message-files.ts); the same object without any.
   */
  #withFiles(message: Message, agent: string, owner: string, taskId: string): Promise<Message> {
    return saveMessageFiles(message, {
      workspace: workspaceFor(this.env.WORKSPACES, agent, owner),
      meta: { taskId, person: isAnonymousOwner(owner) ? ANONYMOUS_CALLER : owner },
      allowPrivate: loadConfig(this.env).webFetchAllowPrivate,
      fetch,
    });
  }

  /** Called by the task's conversation when this queued task's turn has come. */
  async activate(): Promise<void> {
    const rt = this.runtime;
    const waiting = rt.store.record?.state === "TASK_STATE_SUBMITTED";
    if (waiting && rt.contextLink.get().state !== "active") await this.#parts.membership.enter();
  }

  /** The conversation's new object asks this task, its first, for it (see handover.ts). */
  async handOver(input: { key: string }): Promise<Handover> {
    return handOver(this.runtime, input.key);
  }

  /**
   * The task as it is now (`generation`: with its generation); with `hold`, once its generation
   * is past `hold.after` or `hold.ms` passed (a long poll: generation.ts).
   */
  async get(input: {
    owner: string;
    historyLength?: number;
    generation?: boolean;
    hold?: { after: number; ms: number };
  }): Promise<TaskResult<Task>> {
    if (!this.#owned(input.owner)) return notFound();
    if (input.hold) await movedPast(this.runtime, input.hold.after, input.hold.ms);
    return taskOk(taskAnswer(this.runtime, input.historyLength, input.generation));
  }

  /** The task's event log with times, for the inspector (owner only; `owner: null` = admin). */
  async timeline(input: { owner: string | null }): Promise<TaskResult<TimelineEntry[]>> {
    return this.#owned(input.owner) ? taskOk(this.runtime.log.timeline()) : notFound();
  }

  /** The task's spans and its local sub-agents' ids (owner only; `owner: null` = admin). */
  async traceSpans(input: { owner: string | null }): Promise<TaskResult<TaskTraceAnswer>> {
    if (!this.#owned(input.owner)) return notFound();
    return taskOk(await traceOfTask(this.runtime, loadConfig(this.env)));
  }

  /** The bodies of the task's latest model requests, as sent (owner only; `owner: null` = admin). */
  async modelRequests(input: { owner: string | null }): Promise<TaskResult<StoredModelRequest[]>> {
    return this.#owned(input.owner) ? taskOk(this.runtime.modelRequests.all()) : notFound();
  }

  /** Resolves once the task ends or waits for input (`generation`: with its generation). */
  async waitSettled(input: {
    owner: string;
    historyLength?: number;
    generation?: boolean;
  }): Promise<TaskResult<Task>> {
    if (!this.#owned(input.owner)) return notFound();
    return taskOk(await this.#settledTask(input.historyLength, input.generation));
  }

  /** The task once it settles (a blocking send's answer). */
  async #settledTask(historyLength: number | undefined, generation?: boolean): Promise<Task> {
    this.#parts.driver.kick();
    await this.runtime.settled();
    return taskAnswer(this.runtime, historyLength, generation);
  }

  /** The task's record if `owner` may see it (`null`: an admin), else null. */
  #owned(owner: string | null) {
    const record = this.runtime.store.record;
    return record && (owner === null || ownerMatches(record.owner, owner)) ? record : null;
  }

  /** Push notification configs of the task and its delivery record (owner only; admins read). */
  async push(call: PushCall): Promise<TaskResult<PushAnswer>> {
    const record = this.#owned(call.owner);
    if (!record) return notFound();
    const maxConfigs = loadConfig(this.env).maxPushConfigsPerTask;
    const answer = runPushCall(this.runtime.push, record.id, call, maxConfigs);
    return "refused" in answer ? taskFail(answer.refused, answer.message) : taskOk(answer);
  }

  /**
   * Cancels the task: stops the loop; no model call starts after this returns. `reason` is the
   * status message when the harness, not the client, cancels it (the owner's access revoked,
   * api/stop-tasks.ts); without one the status says the client asked, or "Canceled." for a
   * sub-agent.
   */
  async cancel(input: {
    owner: string;
    reason?: string;
    generation?: boolean;
  }): Promise<TaskResult<Task>> {
    const rt = this.runtime;
    const record = rt.store.record;
    if (!record || !ownerMatches(record.owner, input.owner)) return notFound();
    if (isTerminal(record.state))
      return taskFail("not_cancelable", `task ${record.id} has already ended (${record.state})`);
    this.#parts.driver.stop();
    rt.keepPartialAnswer();
    rt.setStatus("TASK_STATE_CANCELED", {
      text:
        input.reason ?? (record.parentTaskId ? "Canceled." : "Canceled at the client's request."),
    });
    await rt.scheduler.cancel("loop");
    // Cancelling a task cancels the sub-agents it started (retried from the schedule).
    if (rt.children.all().length > 0) {
      await rt.scheduler.schedule(CANCEL_CHILDREN_JOB, "context", Date.now());
      rt.background(this.#parts.children.cancelChildren());
    }
    return taskOk(taskAnswer(rt, undefined, input.generation));
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
    await eraseStorage(this.#parts, this.ctx, this.env.FILES);
    this.#wire();
    return true;
  }

  /** A sub-agent's task this task started reports that it settled (retried by the child). */
  async childReport(input: ChildReportInput): Promise<void> {
    if (!this.#isChild(input)) return;
    const { children } = this.#parts;
    children.onReport(input.childTaskId, input.report);
    if (children.settleWait(input.childTaskId) === "resume")
      await this.runtime.scheduler.schedule("loop", "loop", Date.now());
  }

  /** A sub-agent's progress, shown on this task's stream. */
  async childProgress(input: ChildProgressInput): Promise<void> {
    if (this.#isChild(input))
      this.#parts.children.onProgress(input.childTaskId, input.agent, input.text);
  }

  /** Whether a child's call comes from a sub-agent this task started for the same owner. */
  #isChild(input: { owner: string; childTaskId: string }): boolean {
    const record = this.runtime.store.record;
    return record?.owner === input.owner && this.runtime.children.get(input.childTaskId) !== null;
  }

  /**
   * A live stream of the task's events. `after: null` starts with the current Task (refused for
   * an ended task); `after: n` replays what followed event n, then continues live.
   */
  async subscribe(input: SubscribeInput): Promise<TaskResult<ReadableStream<Uint8Array>>> {
    const rt = this.runtime;
    const record = rt.store.record;
    if (!record || !ownerMatches(record.owner, input.owner)) return notFound();
    if (input.after !== null)
      return taskOk(rt.subscribers.open(rt.log.after(input.after), isTerminal(record.state)));
    if (isTerminal(record.state))
      return taskFail("terminal", `task ${record.id} has ended (${record.state}); use GetTask`);
    return taskOk(this.#streamFromNow(false));
  }

  /** A stream that starts with the task as it is now (`closed`: and ends there). */
  #streamFromNow(closed: boolean): ReadableStream<Uint8Array> {
    const rt = this.runtime;
    return rt.subscribers.open([{ seq: rt.log.lastSeq, event: { task: rt.snapshot() } }], closed);
  }

  /** Runs whatever the schedule says is due (the table of jobs is task-parts.ts). */
  override async alarm(): Promise<void> {
    await refreshAgents(this.env, (work) => this.ctx.waitUntil(work));
    const parts = this.#parts;
    await runDueJobs(parts.runtime.scheduler, this.#jobFor, () => this.#parts === parts);
  }
}
