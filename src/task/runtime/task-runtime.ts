/**
 * The one place that changes a task's status, and the task's events: a status change writes the
 * record and its status event in the running unit of work (write-unit.ts) and is announced as one
 * {@link StatusChange}, to listeners that write with it, then, once the unit committed, to those
 * that act on it; a harness event becomes a working status with the event's data part; answer
 * chunks and the answer's echo go to the event log. The runtime builds none of the task's
 * collaborators and calls none of them: task-parts.ts subscribes them.
 */
import type { HarnessEvent } from "../../loop/contracts.ts";
import { harnessEventMessage } from "../../loop/harness-events.ts";
import { unawaitedWork } from "../../platform/ledger.ts";
import { isSettled } from "../../protocol/task-states.ts";
import type { Message, Part, TaskStateName } from "../../protocol/wire.ts";
import { usageMetadata } from "../../trace/cost.ts";
import { answerChunk, answerEcho, emitArtifact, PROGRESS_ARTIFACT_ID } from "./answer-artifact.ts";
import { transition } from "./state-machine.ts";
import type {
  EventSink,
  Listener,
  StatusChange,
  StatusOptions,
  StatusWriter,
} from "./status-change.ts";
import { TaskState } from "./task-state.ts";

/** A task's state, its status changes and its events. Built once per object instance. */
export class TaskRuntime extends TaskState implements StatusWriter, EventSink {
  readonly #onStatusWrite: Array<(change: StatusChange) => void> = [];
  readonly #onStatusChange: Listener<StatusChange>[] = [];
  readonly #onHarnessEvent: Listener<HarnessEvent>[] = [];

  /**
   * Calls `listener` with each status change inside the unit that writes it: what it writes
   * commits or rolls back with the change. It must not wait for anything.
   */
  onStatusWrite(listener: (change: StatusChange) => void): void {
    this.#onStatusWrite.push(listener);
  }

  /** Calls `listener` with each status change once its unit committed. */
  onStatusChange(listener: Listener<StatusChange>): void {
    this.#onStatusChange.push(listener);
  }

  /** Calls `listener` with each harness event published while the task works, once committed. */
  onHarnessEvent(listener: Listener<HarnessEvent>): void {
    this.#onHarnessEvent.push(listener);
  }

  /** Calls `listeners` with `value`; what they start runs on in the background, unawaited. */
  #announce<T>(listeners: Listener<T>[], value: T): void {
    for (const listener of listeners) {
      const work = unawaitedWork(() => listener(value));
      if (work) this.background(work);
    }
  }

  setStatus(state: TaskStateName, options: StatusOptions = {}): void {
    const record = this.store.record;
    if (!record) return;
    if (record.state !== state) transition(record.state, state);
    const message =
      options.message ?? (options.text === undefined ? undefined : this.agentMessage(options.text));
    const usage = usageMetadata(record.metadata, this.loopState.get().usage);
    const status = { state, timestamp: new Date().toISOString(), ...(message ? { message } : {}) };
    this.unit.run(() => {
      this.store.update(status, { ...record.metadata, ...options.metadata, ...usage });
      const event = {
        statusUpdate: {
          taskId: record.id,
          contextId: record.contextId,
          status,
          ...(isSettled(state) ? { metadata: { traceId: record.traceId, ...usage } } : {}),
        },
      };
      this.log.append(event);
      const change: StatusChange = {
        from: record.state,
        state,
        event,
        releaseAfter: options.releaseAfter ?? Promise.resolve(),
      };
      for (const listener of this.#onStatusWrite) listener(change);
      this.unit.afterCommit(() => this.#announce(this.#onStatusChange, change));
    });
  }

  /**
   * Publishes a harness event (tool call, plan, hook intervention...) as a working status update
   * with the event's data part, and keeps it in the task history. A `progress` event also
   * refreshes the task's `progress` artifact.
   */
  emitHarnessEvent(event: HarnessEvent): void {
    const record = this.store.record;
    if (record?.state !== "TASK_STATE_WORKING") return;
    const message = harnessEventMessage(record.agent, event, {
      taskId: record.id,
      contextId: record.contextId,
    });
    this.unit.run(() => {
      this.store.appendHistory(message);
      this.setStatus("TASK_STATE_WORKING", { message });
      if (event.kind === "progress" && typeof event.detail === "object") {
        const parts = [{ data: event.detail, mediaType: "application/json" }];
        emitArtifact(
          this,
          { artifactId: PROGRESS_ARTIFACT_ID, name: "PROGRESS.json", parts },
          { lastChunk: true },
        );
      }
      this.unit.afterCommit(() => this.#announce(this.#onHarnessEvent, event));
    });
  }

  agentMessage(content: string | Part[]): Message {
    const record = this.store.record;
    return {
      messageId: crypto.randomUUID(),
      role: "ROLE_AGENT",
      parts: typeof content === "string" ? [{ text: content }] : content,
      ...(record ? { taskId: record.id, contextId: record.contextId } : {}),
    };
  }

  emitAnswerChunk(text: string, append: boolean, lastChunk: boolean): void {
    const record = this.store.record;
    if (record) this.log.append(answerChunk(record, text, append, lastChunk));
  }

  emitAnswerEcho(answer: string, noteFollows: boolean): void {
    const record = this.store.record;
    if (record) this.log.append(answerEcho(record, answer, noteFollows));
  }
}
