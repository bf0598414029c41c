/**
 * The machinery under the workspace object's RPCs (workspace-object.ts): its storage (manifest,
 * checkpoints, change history, state files at task starts, memory; tables created by the first
 * change or memory read, so a workspace that holds nothing keeps nothing), the scope check, the
 * write lock that runs changes one at a time (each change answered once per idempotency key, the
 * scope's `call`: a retried change writes nothing more, platform/recent-calls.ts), and
 * transactions whose failure makes the in-memory copies be read again.
 */
import { HarnessObject } from "../platform/harness-object.ts";
import { RecentCalls } from "../platform/recent-calls.ts";
import { userKey } from "../store/r2-keys.ts";
import type { Schema } from "../store/sqlite-migrations.ts";
import { ChangeLog } from "./change-log.ts";
import { Blobs } from "./files/blobs.ts";
import { type Change, commitChange, commitHarnessChanges } from "./files/changes.ts";
import { Checkpoints } from "./files/checkpoints.ts";
import type { FileStore } from "./files/file-ops.ts";
import { Manifest } from "./files/manifest.ts";
import { MemoryFile } from "./files/memory-file.ts";
import { checkScope, type WorkspaceScope } from "./keys.ts";
import { workspaceSchema } from "./schema.ts";
import { TaskStarts } from "./task-starts.ts";
import type { WsResult } from "./types.ts";

/** A workspace object's storage, scope and lock. */
export abstract class WorkspaceCore extends HarnessObject {
  protected manifest!: Manifest;
  protected checkpoints!: Checkpoints;
  protected changes!: ChangeLog;
  protected starts!: TaskStarts;
  protected schema!: Schema;
  #scope: WorkspaceScope | null = null;
  #blobs: Blobs | null = null;
  #memory: MemoryFile | null = null;
  #lock: Promise<unknown> = Promise.resolve();
  #calls!: RecentCalls;

  /** Opens the workspace's storage (one without tables: nothing to read, nothing written). */
  protected override open(): void {
    const sql = this.ctx.storage.sql;
    this.schema = workspaceSchema(sql);
    this.manifest = new Manifest(sql, !this.schema.stored);
    this.checkpoints = new Checkpoints(sql, this.manifest);
    this.changes = new ChangeLog(sql);
    this.starts = new TaskStarts(sql);
    this.#calls = new RecentCalls(sql, () => this.schema.ensure());
    this.#scope = null;
    this.#blobs = null;
    this.#memory = null;
  }

  /** Waits for the changes in flight (before an erasure). */
  protected settled(): Promise<unknown> {
    return this.#lock.catch(() => undefined);
  }

  /** One transaction; if it throws, the manifest's in-memory copies are read again too. */
  protected transaction<T>(fn: () => T): T {
    try {
      return this.ctx.storage.transactionSync(fn);
    } catch (error) {
      this.manifest.forget();
      throw error;
    }
  }

  /** Applies a change with its automatic checkpoints and its change-history row, in one transaction. */
  protected commit(change: Change): string | null {
    return this.transaction(() => {
      const checkpoint = commitChange(this.manifest, this.checkpoints, change);
      this.changes.record({
        at: new Date().toISOString(),
        op: change.op === "write" && !change.existing ? "create" : change.op,
        path: change.path,
        taskId: change.taskId,
        agent: change.agent ?? null,
        person: change.person ?? null,
        line: change.line,
        added: change.added,
        removed: change.removed,
      });
      return checkpoint;
    });
  }

  /** The file store for `scope` (checked as {@link bind} does). */
  protected files(scope: WorkspaceScope): FileStore {
    return {
      manifest: this.manifest,
      blobs: this.bind(scope),
      commit: (change) => this.commit(change),
      commitHarness: (changes) =>
        this.transaction(() => commitHarnessChanges(this.manifest, changes)),
    };
  }

  /** The owner's memory with this agent. */
  protected memoryOf(scope: WorkspaceScope): MemoryFile {
    this.bind(scope);
    this.schema.ensure(); // the file's text is kept in SQLite once read
    this.#memory ??= new MemoryFile(
      this.ctx.storage.sql,
      this.env.FILES,
      userKey(scope.agent, scope.owner, "memory/CONTEXT.md"),
      this.manifest,
    );
    return this.#memory;
  }

  /** Checks the scope against the one this object serves (recording it on first use). */
  protected bind(scope: WorkspaceScope): Blobs {
    const known = this.#scope ?? this.manifest.scope();
    if (known && known.agent === scope?.agent && known.owner === scope?.owner && this.#blobs) {
      return this.#blobs;
    }
    checkScope(known, scope);
    // Durable with the first change: until then there is nothing the check protects.
    if (!known) this.manifest.noteMeta({ agent: scope.agent, owner: scope.owner });
    this.#scope = { agent: scope.agent, owner: scope.owner };
    this.#blobs = new Blobs(this.env.FILES, this.#scope);
    return this.#blobs;
  }

  /**
   * Checks the scope, then resolves once the changes asked for before this call are made: a read
   * sees every write that reached the object before it (a task's end note is asked for without
   * waiting for it).
   */
  protected async forReading(scope: WorkspaceScope): Promise<Blobs> {
    const blobs = this.bind(scope);
    await this.#lock;
    return blobs;
  }

  /** Runs `change` on the scope's files under the object's lock. */
  protected change<T>(scope: WorkspaceScope, change: (files: FileStore) => Promise<WsResult<T>>) {
    const files = this.files(scope);
    return this.exclusive(() => change(files), scope.call);
  }

  /** Checks the scope, then runs `fn` in one transaction under the object's lock. */
  protected inTransaction<T>(scope: WorkspaceScope, fn: () => WsResult<T>): Promise<WsResult<T>> {
    this.bind(scope);
    return this.exclusive(async () => this.transaction(fn), scope.call);
  }

  /**
   * Runs `fn` after every earlier change finished (changes never interleave); a change keyed
   * `call` that already ran answers as it did, without running again.
   */
  protected exclusive<T>(fn: () => Promise<WsResult<T>>, call?: string): Promise<WsResult<T>> {
    this.schema.ensure();
    const once = () => this.#calls.once(call, fn);
    const run = this.#lock.then(once, once);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}
