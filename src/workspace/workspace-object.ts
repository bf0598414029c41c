/**
 * The workspace Durable Object: one per (agent, owner), the single writer of that workspace's
 * manifest. Files are bytes (UTF-8 text, or an upload's bytes) stored content-addressed in R2 (files/blobs.ts); the manifest,
 * checkpoints and task checkpoints live in the object's SQLite. Every RPC takes the scope first
 * (see client.ts); the object remembers the first scope it served (durably from its first change)
 * and refuses any other. Its tables are created by its first change or memory read: reading a
 * workspace that holds nothing writes nothing, and an erased workspace keeps no tables.
 * Changes run one at a time; before a change that would lose unsaved work it takes an automatic
 * checkpoint, and before a task's first change it records the task's checkpoint (for rollback).
 * Refusals the model can act on are `{ ok: false, error }`; only bugs throw.
 */

import { NOT_TEXT, readTexts } from "./files/blobs.ts";
import { restoreCheckpoint } from "./files/changes.ts";
import { labelProblem } from "./files/checkpoints.ts";
import { downloadFile, editFile, fail, readFile, removeFile, writeFile } from "./files/file-ops.ts";
import { pathFilter, searchFiles } from "./files/grep.ts";
import { compilePattern } from "./files/grep-pattern.ts";
import { writeTaskEnd } from "./handoff.ts";
import type { WorkspaceRpc, WorkspaceScope } from "./keys.ts";
import { GREP_DEFAULT_RESULTS, GREP_MAX_RESULTS, workspacePrefix } from "./limits.ts";
import { AGENT_STATE_FILE, endedHere } from "./state/agent-state.ts";
import { FEATURE_STATUS_FILE } from "./state/feature-status.ts";
import { PROGRESS_LOG_FILE } from "./state/progress-log.ts";
import { DECISIONS_FILE, PROGRESS_FILE } from "./state/state-files.ts";
import type { MemoryMode, TaskEndInput, WorkspaceApi, WriteMeta } from "./types.ts";
import { WorkspaceCore } from "./workspace-core.ts";

type Result<K extends keyof WorkspaceApi> = Awaited<ReturnType<WorkspaceApi[K]>>;

/** A workspace's Durable Object. */
export class WorkspaceObject extends WorkspaceCore implements WorkspaceRpc {
  constructor(ctx: DurableObjectState, rawEnv: Env) {
    super(ctx, rawEnv, "workspace");
  }

  /**
   * Forgets the workspace's manifest and checkpoints (privacy erasure; the caller deletes the
   * blobs under the owner's R2 prefix). The next use starts an empty workspace.
   */
  async erase(): Promise<void> {
    await this.settled();
    await this.ctx.storage.deleteAll();
    this.open();
  }

  /** Reads lines `offset`.. (1-based, at most `limit`) of a file. */
  async read(
    scope: WorkspaceScope,
    path: string,
    options: { offset?: number; limit?: number } = {},
  ): Promise<Result<"read">> {
    const files = { manifest: this.manifest, blobs: await this.forReading(scope) };
    return readFile(files, path, options);
  }

  /** Creates or overwrites a file with `content` (text, or raw bytes). */
  async write(
    scope: WorkspaceScope,
    path: string,
    content: string | Uint8Array,
    meta: WriteMeta,
  ): Promise<Result<"write">> {
    return this.change(scope, async (files) => {
      if (meta.harness === true && this.starts.due(meta.taskId, path)) {
        // The end note measures the task's own change from this (task-starts.ts).
        const before = await readTexts(this.manifest, files.blobs, [path]);
        this.starts.record(meta.taskId, path, before[path] ?? null);
      }
      return writeFile(files, path, content, meta);
    });
  }

  /** Removes a file (checkpointed first when its version is in no checkpoint). */
  async remove(scope: WorkspaceScope, path: string, meta: WriteMeta): Promise<Result<"remove">> {
    return this.change(scope, (files) => removeFile(files, path, meta));
  }

  /** A file's bytes as stored, with its entry and hash. */
  async download(scope: WorkspaceScope, path: string): Promise<Result<"download">> {
    const blobs = await this.forReading(scope);
    return downloadFile({ manifest: this.manifest, blobs }, path);
  }

  /**
   * Writes the note a task leaves when it ends (HANDOFF.md, decisions.log when PROGRESS.json
   * records new decisions, progress_log.md, agent_state.json), composed here in one locked step
   * from the current state files and the task's records (its changes, PROGRESS.json at its
   * start): the task asks for it without waiting, and any read that arrives later sees it.
   * Once per task and end, keyed by them, not by the call: agent_state.json lists the last tasks
   * that ended here with their states, and a note for one of them (a retried call whose first
   * answer was lost) writes nothing again. So the note costs no idempotency row; an agent_state.json the
   * agent made unreadable lists nothing, and a retry then writes the note once more.
   */
  async endNote(scope: WorkspaceScope, input: TaskEndInput): Promise<Result<"endNote">> {
    const files = this.files(scope);
    if (input.newOwner) this.memoryOf(scope).noteNew();
    const end = async () => {
      const paths = [PROGRESS_FILE, DECISIONS_FILE, PROGRESS_LOG_FILE, AGENT_STATE_FILE];
      const t = await readTexts(this.manifest, files.blobs, [...paths, FEATURE_STATUS_FILE]);
      const texts = {
        progress: t[PROGRESS_FILE] ?? null,
        decisions: t[DECISIONS_FILE] ?? null,
        progressLog: t[PROGRESS_LOG_FILE] ?? null,
        agentState: t[AGENT_STATE_FILE] ?? null,
        featureStatus: t[FEATURE_STATUS_FILE] ?? null,
      };
      if (endedHere(texts.agentState, input.taskId, input.state))
        return { ok: true as const, value: { written: [] } };
      const record = {
        files: this.changes.filesOf(input.taskId),
        progressAtStart: this.starts.take(input.taskId, PROGRESS_FILE),
      };
      return writeTaskEnd(files, input, texts, record);
    };
    return this.exclusive(end);
  }

  /** Replaces the single occurrence of `oldText` in a file with `newText`. */
  async edit(
    scope: WorkspaceScope,
    path: string,
    oldText: string,
    newText: string,
    meta: WriteMeta,
  ): Promise<Result<"edit">> {
    return this.change(scope, (files) => editFile(files, path, oldText, newText, meta));
  }

  /** The files whose path starts with `prefix`, from the manifest, sorted by path. */
  async list(scope: WorkspaceScope, prefix?: string): Promise<Result<"list">> {
    await this.forReading(scope);
    const p = workspacePrefix(prefix);
    if (!p.ok) return p;
    const entries = this.manifest.list(p.value);
    return { ok: true, value: { entries, total: entries.length } };
  }

  /** The listing and the whole text of `paths` (null where missing), read in parallel. */
  async snapshot(
    scope: WorkspaceScope,
    paths: string[],
    options: { memory?: boolean; history?: number } = {},
  ): Promise<Result<"snapshot">> {
    const blobs = await this.forReading(scope);
    const entries = this.manifest.list("");
    const [texts, memory] = await Promise.all([
      readTexts(this.manifest, blobs, paths),
      options.memory ? this.memoryOf(scope).read() : undefined,
    ]);
    const changes =
      options.history && this.schema.stored ? this.changes.recent(options.history) : undefined;
    return {
      ok: true,
      value: {
        entries,
        total: entries.length,
        texts,
        ...(memory === undefined ? {} : { memory }),
        ...(changes ? { changes } : {}),
      },
    };
  }

  /** The text `path` had at checkpoint `checkpoint`. */
  async readAt(scope: WorkspaceScope, checkpoint: string, path: string): Promise<Result<"readAt">> {
    const blobs = await this.forReading(scope);
    if (!this.schema.stored) return fail("this workspace has no checkpoints yet");
    if (typeof checkpoint !== "string" || !this.checkpoints.info(checkpoint))
      return fail(this.checkpoints.unknown(checkpoint));
    const hash = this.checkpoints.fileAt(checkpoint, path);
    if (!hash) return fail(`checkpoint ${checkpoint} holds no ${path}`);
    const text = await blobs.text(hash);
    if (text === NOT_TEXT) return fail(`${path} is not a text file`, "not_text");
    return text === null
      ? fail(`the content of ${path} is missing from storage`)
      : { ok: true, value: { text } };
  }

  /** The versions of `path` the checkpoints hold, newest first (at most `limit`, 5 by default). */
  async versions(scope: WorkspaceScope, path: string, limit = 5): Promise<Result<"versions">> {
    const blobs = await this.forReading(scope);
    if (!this.schema.stored) return { ok: true, value: { versions: [] } };
    const found = this.checkpoints.versionsOf(path, Math.min(Math.max(1, limit), 20));
    const texts = await Promise.all(found.map((v) => blobs.text(v.hash)));
    const versions = found.flatMap((v, i) => {
      const text = texts[i];
      return typeof text === "string"
        ? [{ checkpoint: v.checkpoint, createdAt: v.createdAt, text }]
        : [];
    });
    return { ok: true, value: { versions } };
  }

  /** The owner's memory with this agent (CONTEXT.md), or null. */
  async memory(scope: WorkspaceScope): Promise<string | null> {
    return this.memoryOf(scope).read();
  }

  /** Appends to or replaces the owner's memory with this agent. */
  async memoryWrite(
    scope: WorkspaceScope,
    content: string,
    mode: MemoryMode,
  ): Promise<Result<"memoryWrite">> {
    const memory = this.memoryOf(scope);
    return this.exclusive(() => memory.write(content, mode), scope.call);
  }

  /** Lines matching a regular expression (in linear time), in files selected by a prefix or glob. */
  async grep(
    scope: WorkspaceScope,
    pattern: string,
    options: { path?: string; maxResults?: number } = {},
  ): Promise<Result<"grep">> {
    const blobs = await this.forReading(scope);
    const regex = await compilePattern(pattern);
    if (!regex.ok) return regex;
    const filter = pathFilter(options.path);
    if (!filter.ok) return filter;
    const max = options.maxResults ?? GREP_DEFAULT_RESULTS;
    if (!Number.isInteger(max) || max < 1) {
      return fail(`maxResults must be a whole number of 1 or more, got ${max}`);
    }
    const rows = this.manifest.rows().filter((r) => filter.value(r.path));
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
    return this.inTransaction(scope, () => {
      const problem = labelProblem(text);
      if (problem) return fail(problem);
      const origin = { automatic: false, taskId: meta.taskId };
      const at = new Date().toISOString();
      const created = this.checkpoints.create(text, at, origin);
      this.#log(meta, at, "checkpoint", `${created.id} ${JSON.stringify(text)}`);
      return { ok: true, value: created };
    });
  }

  /** Every checkpoint, newest first. */
  async checkpointList(scope: WorkspaceScope): Promise<Result<"checkpointList">> {
    this.bind(scope);
    const checkpoints = this.schema.stored ? this.checkpoints.list() : [];
    return { ok: true, value: { checkpoints } };
  }

  /** Takes an automatic checkpoint of the current state, then restores checkpoint `id`. */
  async checkpointRestore(
    scope: WorkspaceScope,
    id: string,
    meta: WriteMeta,
  ): Promise<Result<"checkpointRestore">> {
    return this.inTransaction(scope, () => {
      if (typeof id !== "string" || !this.checkpoints.info(id)) {
        return fail(this.checkpoints.unknown(id));
      }
      const restored = restoreCheckpoint(this.checkpoints, id, meta.taskId);
      const line = `restored ${id} (${restored.files} files; the state before is ${restored.backup})`;
      this.#log(meta, new Date().toISOString(), "restore", line);
      return { ok: true, value: restored };
    });
  }

  /** A change-history row for a checkpoint or a restore (in the caller's transaction). */
  #log(meta: WriteMeta, at: string, op: "checkpoint" | "restore", line: string): void {
    const agent = meta.agent ?? null;
    this.changes.record({
      at,
      op,
      path: null,
      taskId: meta.taskId,
      agent,
      person: meta.person ?? null,
      line,
      added: 0,
      removed: 0,
    });
  }

  /** The checkpoint taken before the task's first change, if it changed anything. */
  async taskCheckpoint(scope: WorkspaceScope, taskId: string): Promise<string | null> {
    this.bind(scope);
    return this.schema.stored ? this.checkpoints.forTask(taskId) : null;
  }
}
