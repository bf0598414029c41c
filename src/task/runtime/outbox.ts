/**
 * Work a task object owes the outside world after a state change: the D1 index row and, once a
 * task ends, a copy of its artifacts in R2. Each is tried at once; a failure is retried from the
 * object's schedule with backoff, so a brief D1 or R2 outage loses nothing. Rows are derived from
 * the current state at send time, so a retry always sends the newest version.
 */
import { backoffMs } from "../../model/errors.ts";
import { log } from "../../platform/logging.ts";
import { isTerminal } from "../../protocol/task-states.ts";
import type { Artifact } from "../../protocol/wire.ts";
import { type TaskIndexRow, upsertTaskIndex } from "../../store/d1-index.ts";
import { taskKey } from "../../store/r2-keys.ts";
import type { Scheduler } from "../../store/scheduler.ts";
import { lineageOf } from "../store/lineage.ts";
import type { LoopStateStore } from "../store/loop-state.ts";
import type { TaskStore } from "../store/task-store.ts";

/** Retries before an outbox job gives up (the next state change sends again anyway). */
export const OUTBOX_MAX_ATTEMPTS = 12;
const OUTBOX_BASE_MS = 500;

/** Inputs the outbox reads when it sends. */
export interface OutboxSource {
  indexRow(): TaskIndexRow | null;
  finishedArtifacts(): { taskId: string; artifacts: Artifact[] } | null;
}

/** What the outbox sends for a task, read from its stores at send time. */
export function outboxSourceOf(store: TaskStore, loopState: LoopStateStore): OutboxSource {
  return {
    indexRow: () => {
      const record = store.record;
      if (!record) return null;
      return {
        id: record.id,
        agent: record.agent,
        contextId: record.contextId,
        owner: record.owner,
        state: record.state,
        parentTaskId: record.parentTaskId,
        rootAgent: lineageOf(record).rootAgent,
        traceId: record.traceId,
        createdAt: record.createdAt,
        updatedAt: record.updatedAt,
        version: record.version,
        ...loopState.get().usage,
      };
    },
    finishedArtifacts: () => {
      const record = store.record;
      if (!record || !isTerminal(record.state)) return null;
      return { taskId: record.id, artifacts: store.artifacts() };
    },
  };
}

/** Sends index rows and artifact copies, retrying through the schedule. */
export class Outbox {
  readonly #db: D1Database;
  readonly #bucket: R2Bucket;
  readonly #scheduler: Scheduler;
  readonly #source: OutboxSource;

  constructor(db: D1Database, bucket: R2Bucket, scheduler: Scheduler, source: OutboxSource) {
    this.#db = db;
    this.#bucket = bucket;
    this.#scheduler = scheduler;
    this.#source = source;
  }

  /** Writes the index row now; on failure schedules a retry. */
  async syncIndex(): Promise<void> {
    await this.#attempt("outbox:index", async () => {
      const row = this.#source.indexRow();
      if (row) await upsertTaskIndex(this.#db, row);
    });
  }

  /** Copies the finished task's artifacts to R2 (`tasks/<id>/artifacts/...`); retries on failure. */
  async exportArtifacts(): Promise<void> {
    await this.#attempt("outbox:export", async () => {
      const finished = this.#source.finishedArtifacts();
      if (!finished) return;
      for (const artifact of finished.artifacts) {
        const text = artifact.parts.map((p) => p.text ?? "").join("");
        await this.#bucket.put(
          taskKey(finished.taskId, `artifacts/${artifact.artifactId}.md`),
          text,
          {
            httpMetadata: { contentType: "text/markdown; charset=utf-8" },
            customMetadata: { name: artifact.name ?? artifact.artifactId },
          },
        );
      }
    });
  }

  /** Runs a due retry entry. */
  async retry(id: string): Promise<void> {
    if (id === "outbox:index") await this.syncIndex();
    else if (id === "outbox:export") await this.exportArtifacts();
    else await this.#scheduler.cancel(id);
  }

  /** Resolves once the sends in flight have finished (before the task's storage is erased). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  readonly #inFlight = new Set<Promise<void>>();

  #attempt(id: string, send: () => Promise<void>): Promise<void> {
    const run = this.#send(id, send);
    this.#inFlight.add(run);
    run.finally(() => this.#inFlight.delete(run)).catch(() => undefined);
    return run;
  }

  async #send(id: string, send: () => Promise<void>): Promise<void> {
    try {
      await send();
      if (this.#scheduler.get(id)) await this.#scheduler.cancel(id);
    } catch (error) {
      const attempts = (this.#scheduler.get(id)?.attempts ?? 0) + 1;
      const message = error instanceof Error ? error.message : String(error);
      if (attempts >= OUTBOX_MAX_ATTEMPTS) {
        log("error", "outbox gave up", { job: id, attempts, error: message });
        await this.#scheduler.cancel(id);
        return;
      }
      log("warn", "outbox retry", { job: id, attempts, error: message });
      await this.#scheduler.schedule(
        id,
        "outbox",
        Date.now() + backoffMs(attempts, OUTBOX_BASE_MS),
        {
          attempts,
        },
      );
    }
  }
}
