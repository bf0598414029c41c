/**
 * The workspace Durable Object: one per (agent, owner), the single writer of that workspace's
 * manifest. Files are UTF-8 text stored content-addressed in R2 (blobs.ts); the manifest,
 * checkpoints and task checkpoints live in the object's SQLite. Every RPC takes the scope first
 * (see client.ts); the object remembers the first scope it served (durably from its first change)
 * and refuses any other. Its tables are created by its first change or memory read: reading a
 * workspace that holds nothing writes nothing, and an erased workspace keeps no tables.
 * Changes run one at a time; before a change that would lose unsaved work it takes an automatic
 * checkpoint, and before a task's first change it records the task's checkpoint (for rollback).
 * Refusals the model can act on are `{ ok: false, error }`; only bugs throw.
 */
import { HarnessObject } from "../platform/harness-object.ts";
import { userKey } from "../store/r2-keys.ts";
import type { Schema } from "../store/sqlite-migrations.ts";
import { Blobs, readTexts } from "./blobs.ts";
import { type Change, commitChange, restoreCheckpoint } from "./changes.ts";
import { Checkpoints, labelProblem } from "./checkpoints.ts";
import { editFile, type FileStore, fail, readFile, writeFile } from "./file-ops.ts";
import { compilePattern, pathFilter, searchFiles } from "./grep.ts";
import { writeTaskEnd } from "./handoff.ts";
import { checkScope, type WorkspaceRpc, type WorkspaceScope } from "./keys.ts";
import { GREP_DEFAULT_RESULTS, GREP_MAX_RESULTS, workspacePrefix } from "./limits.ts";
import { Manifest } from "./manifest.ts";
import { MemoryFile } from "./memory-file.ts";
import { workspaceSchema } from "./schema.ts";
import { DECISIONS_FILE, PROGRESS_FILE } from "./state-files.ts";
import type { MemoryMode, TaskEndInput, WorkspaceApi, WriteMeta, WsResult } from "./types.ts";

type Result<K extends keyof WorkspaceApi> = Awaited<ReturnType<WorkspaceApi[K]>>;

/** A workspace's Durable Object. */
export class WorkspaceObject extends HarnessObject implements WorkspaceRpc {
  #manifest!: Manifest;
  #checkpoints!: Checkpoints;
  #schema!: Schema;
  #scope: WorkspaceScope | null = null;
  #blobs: Blobs | null = null;
  #memory: MemoryFile | null = null;
  #lock: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, rawEnv: Env) {
    super(ctx, rawEnv, "workspace");
  }

  /** Opens the workspace's storage (one without tables: nothing to read, nothing written). */
  protected override open(): void {
    const sql = this.ctx.storage.sql;
    this.#schema = workspaceSchema(sql);
    this.#manifest = new Manifest(sql, !this.#schema.stored);
    this.#checkpoints = new Checkpoints(sql, this.#manifest);
    this.#scope = null;
    this.#blobs = null;
    this.#memory = null;
  }

  /** One transaction; if it throws, the manifest's in-memory copies are read again too. */
  #transaction<T>(fn: () => T): T {
    try {
      return this.ctx.storage.transactionSync(fn);
    } catch (error) {
      this.#manifest.forget();
      throw error;
    }
  }

  /**
   * Forgets the workspace's manifest and checkpoints (privacy erasure; the caller deletes the
   * blobs under the owner's R2 prefix). The next use starts an empty workspace.
   */
  async erase(): Promise<void> {
    await this.#lock.catch(() => undefined);
    await this.ctx.storage.deleteAll();
    this.open();
  }

  /** Reads lines `offset`.. (1-based, at most `limit`) of a file. */
  async read(
    scope: WorkspaceScope,
    path: string,
    options: { offset?: number; limit?: number } = {},
  ): Promise<Result<"read">> {
    const files = { manifest: this.#manifest, blobs: await this.#forReading(scope) };
    return readFile(files, path, options);
  }

  /** Creates or overwrites a file with `content`. */
  async write(
    scope: WorkspaceScope,
    path: string,
    content: string,
    meta: WriteMeta,
  ): Promise<Result<"write">> {
    return this.#change(scope, (files) => writeFile(files, path, content, meta));
  }

  /**
   * Writes the note a task leaves when it ends (HANDOFF.md, and decisions.log when PROGRESS.json
   * records new decisions), composed here from the current state files in one locked step: the
   * task asks for it without waiting, and any read that arrives later sees it.
   */
  async endNote(scope: WorkspaceScope, input: TaskEndInput): Promise<Result<"endNote">> {
    const files = this.#files(scope);
    if (input.newOwner) this.#memoryOf(scope).noteNew();
    return this.#exclusive(async () => {
      const texts = await readTexts(this.#manifest, files.blobs, [PROGRESS_FILE, DECISIONS_FILE]);
      return writeTaskEnd(
        files,
        input,
        texts[PROGRESS_FILE] ?? null,
        texts[DECISIONS_FILE] ?? null,
      );
    });
  }

  /** Replaces the single occurrence of `oldText` in a file with `newText`. */
  async edit(
    scope: WorkspaceScope,
    path: string,
    oldText: string,
    newText: string,
    meta: WriteMeta,
  ): Promise<Result<"edit">> {
    return this.#change(scope, (files) => editFile(files, path, oldText, newText, meta));
  }

  /** The files whose path starts with `prefix`, from the manifest, sorted by path. */
  async list(scope: WorkspaceScope, prefix?: string): Promise<Result<"list">> {
    await this.#forReading(scope);
    const p = workspacePrefix(prefix);
    if (!p.ok) return p;
    const entries = this.#manifest.list(p.value);
    return { ok: true, value: { entries, total: entries.length } };
  }

  /** The listing and the whole text of `paths` (null where missing), read in parallel. */
  async snapshot(
    scope: WorkspaceScope,
    paths: string[],
    options: { memory?: boolean } = {},
  ): Promise<Result<"snapshot">> {
    const blobs = await this.#forReading(scope);
    const entries = this.#manifest.list("");
    const [texts, memory] = await Promise.all([
      readTexts(this.#manifest, blobs, paths),
      options.memory ? this.#memoryOf(scope).read() : undefined,
    ]);
    const value = { entries, total: entries.length, texts };
    return { ok: true, value: memory === undefined ? value : { ...value, memory } };
  }

  /** The owner's memory with this agent (CONTEXT.md), or null. */
  async memory(scope: WorkspaceScope): Promise<string | null> {
    return this.#memoryOf(scope).read();
  }

  /** Appends to or replaces the owner's memory with this agent. */
  async memoryWrite(
    scope: WorkspaceScope,
    content: string,
    mode: MemoryMode,
  ): Promise<Result<"memoryWrite">> {
    const memory = this.#memoryOf(scope);
    return this.#exclusive(() => memory.write(content, mode));
  }

  #memoryOf(scope: WorkspaceScope): MemoryFile {
    this.#bind(scope);
    this.#schema.ensure(); // the file's text is kept in SQLite once read
    this.#memory ??= new MemoryFile(
      this.ctx.storage.sql,
      this.env.FILES,
      userKey(scope.agent, scope.owner, "memory/CONTEXT.md"),
      this.#manifest,
    );
    return this.#memory;
  }

  /** Lines matching a JavaScript RegExp, in files selected by a prefix or glob. */
  async grep(
    scope: WorkspaceScope,
    pattern: string,
    options: { path?: string; maxResults?: number } = {},
  ): Promise<Result<"grep">> {
    const blobs = await this.#forReading(scope);
    const regex = compilePattern(pattern);
    if (!regex.ok) return regex;
    const filter = pathFilter(options.path);
    if (!filter.ok) return filter;
    const max = options.maxResults ?? GREP_DEFAULT_RESULTS;
    if (!Number.isInteger(max) || max < 1) {
      return fail(`maxResults must be a whole number of 1 or more, got ${max}`);
    }
    const rows = this.#manifest.rows().filter((r) => filter.value(r.path));
    const found = await searchFiles(rows, blobs, regex.value, Math.min(max, GREP_MAX_RESULTS));
    return { ok: true, value: found };
  }

  /** Saves the current manifest as a checkpoint named `label`. */
  async checkpointCreate(
    scope: WorkspaceScope,
    label: string,
    meta: WriteMeta,
  ): Promise<Result<"checkpointCreate">> {
    const text = typeof label === "string" ? label.trim() : "";
    return this.#inTransaction(scope, () => {
      const problem = labelProblem(text);
      if (problem) return fail(problem);
      const origin = { automatic: false, taskId: meta.taskId };
      return { ok: true, value: this.#checkpoints.create(text, new Date().toISOString(), origin) };
    });
  }

  /** Every checkpoint, newest first. */
  async checkpointList(scope: WorkspaceScope): Promise<Result<"checkpointList">> {
    this.#bind(scope);
    const checkpoints = this.#schema.stored ? this.#checkpoints.list() : [];
    return { ok: true, value: { checkpoints } };
  }

  /** Takes an automatic checkpoint of the current state, then restores checkpoint `id`. */
  async checkpointRestore(
    scope: WorkspaceScope,
    id: string,
    meta: WriteMeta,
  ): Promise<Result<"checkpointRestore">> {
    return this.#inTransaction(scope, () => {
      if (typeof id !== "string" || !this.#checkpoints.info(id)) {
        return fail(this.#checkpoints.unknown(id));
      }
      return { ok: true, value: restoreCheckpoint(this.#checkpoints, id, meta.taskId) };
    });
  }

  /** The checkpoint taken before the task's first change, if it changed anything. */
  async taskCheckpoint(scope: WorkspaceScope, taskId: string): Promise<string | null> {
    this.#bind(scope);
    return this.#schema.stored ? this.#checkpoints.forTask(taskId) : null;
  }

  /** Applies a change with its automatic checkpoints, in one transaction. */
  #commit(change: Change): string | null {
    return this.#transaction(() => commitChange(this.#manifest, this.#checkpoints, change));
  }

  /** The file store for `scope` (checked as {@link #bind} does). */
  #files(scope: WorkspaceScope): FileStore {
    return {
      manifest: this.#manifest,
      blobs: this.#bind(scope),
      commit: (change) => this.#commit(change),
    };
  }

  /** Checks the scope against the one this object serves (recording it on first use). */
  #bind(scope: WorkspaceScope): Blobs {
    const known = this.#scope ?? this.#manifest.scope();
    if (known && known.agent === scope?.agent && known.owner === scope?.owner && this.#blobs) {
      return this.#blobs;
    }
    checkScope(known, scope);
    // Durable with the first change: until then there is nothing the check protects.
    if (!known) this.#manifest.noteMeta({ agent: scope.agent, owner: scope.owner });
    this.#scope = { agent: scope.agent, owner: scope.owner };
    this.#blobs = new Blobs(this.env.FILES, this.#scope);
    return this.#blobs;
  }

  /**
   * Checks the scope, then resolves once the changes asked for before this call are made: a read
   * sees every write that reached the object before it (a task's end note is asked for without
   * waiting for it).
   */
  async #forReading(scope: WorkspaceScope): Promise<Blobs> {
    const blobs = this.#bind(scope);
    await this.#lock;
    return blobs;
  }

  /** Runs `change` on the scope's files under the object's lock. */
  #change<T>(scope: WorkspaceScope, change: (files: FileStore) => Promise<WsResult<T>>) {
    const files = this.#files(scope);
    return this.#exclusive(() => change(files));
  }

  /** Checks the scope, then runs `fn` in one transaction under the object's lock. */
  #inTransaction<T>(scope: WorkspaceScope, fn: () => WsResult<T>): Promise<WsResult<T>> {
    this.#bind(scope);
    return this.#exclusive(async () => this.#transaction(fn));
  }

  /** Runs `fn` after every earlier change finished (changes never interleave). */
  #exclusive<T>(fn: () => Promise<WsResult<T>>): Promise<WsResult<T>> {
    this.#schema.ensure();
    const run = this.#lock.then(fn, fn);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}
