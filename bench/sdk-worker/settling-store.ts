/**
 * A `TaskStore` wrapper that knows when a task's writes are over, so the Worker can keep its
 * request alive for them: with `returnImmediately` the SDK answers after the first event and goes
 * on saving the task, and under `wrangler dev` a D1 write that outlives its request never lands
 * (the task stays WORKING in D1). `settled(taskId)` resolves once the write of a final state
 * (terminal, or interrupted: input or auth required) is done; hand it to `ctx.waitUntil`. A task
 * that never reaches one (a stream whose client left) keeps its small entry: fine for a bench peer.
 */
import { type ListTasksRequest, type ListTasksResponse, type Task, TaskState } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";

/** States after which the SDK writes nothing more for this run of the task. */
const FINAL = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** Delegates to `inner`; tracks, per task, whether its final write is still to come. */
export class SettlingTaskStore implements TaskStore {
  readonly #inner: TaskStore;
  readonly #running = new Map<string, { done: Promise<void>; resolve: () => void }>();

  constructor(inner: TaskStore) {
    this.#inner = inner;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    let run = this.#running.get(task.id);
    if (!run) {
      let resolve = () => {};
      const done = new Promise<void>((r) => {
        resolve = r;
      });
      run = { done, resolve };
      this.#running.set(task.id, run);
    }
    try {
      await this.#inner.save(task, context);
    } finally {
      if (task.status && FINAL.has(task.status.state)) {
        this.#running.delete(task.id);
        run.resolve();
      }
    }
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.#inner.load(taskId, context);
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.#inner.list(params, context);
  }

  /** Resolves when the task's final write is done (at once if none is pending). */
  settled(taskId: string): Promise<void> {
    return this.#running.get(taskId)?.done ?? Promise.resolve();
  }
}
