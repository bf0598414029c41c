/**
 * The workspace contract between the task object (its tools) and the workspace Durable Object
 * (one per agent and owner, the single writer of the workspace's manifest). Every call answers
 * a value; a refusal the agent can act on (bad path, not found, not unique, too large) is an
 * `ok: false` with a plain message, never a thrown error.
 */

import type { ChangeEntry } from "./change-log.ts";

/**
 * What kind of refusal a workspace call met, where a caller answers by kind (the files API's
 * statuses, api/workspace-files.ts); the message says the same in words.
 */
export type Refusal =
  /** The path breaks the path rules (limits.ts). */
  | "invalid_path"
  /** No such file. */
  | "not_found"
  /** A state file, which only its keeping tool or the harness writes (state/state-guard.ts). */
  | "state_file"
  /** Over MAX_FILE_BYTES. */
  | "too_large"
  /** The workspace holds MAX_FILES files already. */
  | "full"
  /** The file's bytes are not UTF-8 text (an upload): the text tools do not read it. */
  | "not_text";

/** Outcome of a workspace call. */
export type WsResult<T> = { ok: true; value: T } | { ok: false; error: string; reason?: Refusal };

/** How a memory write changes CONTEXT.md. */
export type MemoryMode = "append" | "replace";

/** Who is writing, for automatic checkpoints, rollback and the change history. */
export interface WriteMeta {
  taskId: string;
  /** The agent whose task writes (for the change history). */
  agent?: string;
  /**
   * A write by the harness's own code (a state file's keeping tool, the end-of-task note): the
   * only kind that may change a state file (state/state-guard.ts), and it takes no automatic
   * checkpoint. Never derived from model input.
   */
  harness?: boolean;
  /**
   * A person's change (an upload or a deletion through the files API, a file sent with a
   * message): who (a user's id, or `anonymous`). It takes no task checkpoint (a rollback of the
   * task keeps what the person put there) and the change history marks it as the person's.
   * `taskId` is then the task the file came with, or "" (the files API: no task).
   */
  person?: string;
}

/** A file as listed. */
export interface WorkspaceEntry {
  path: string;
  size: number;
  updatedAt: string;
}

/** A checkpoint as listed. */
export interface CheckpointInfo {
  id: string;
  label: string;
  createdAt: string;
  files: number;
  /** True for the checkpoints the harness took by itself. */
  automatic: boolean;
}

/** What the end note is made from: the task's own records. */
export interface TaskEndInput {
  taskId: string;
  agent: string;
  state: string;
  /** The first user message's text (what the task was asked). */
  asked: string;
  answer: string;
  /** ISO time of the end. */
  at: string;
  /** The owner is new with this task (an anonymous conversation the server opened): no memory. */
  newOwner?: boolean;
  /** Tokens the task used (all model calls), for the progress log. */
  tokens?: number;
  /** Model calls the task made (its turns), for the progress log and the handoff. */
  turns?: number;
  /** The task's estimated cost in US dollars (model/pricing.ts), for the same. */
  costUsd?: number;
  /** ISO time the task was created, for the progress log's duration. */
  startedAt?: string;
}

/** What the workspace object offers over RPC. */
export interface WorkspaceApi {
  read(
    path: string,
    options?: { offset?: number; limit?: number },
  ): Promise<
    WsResult<{
      path: string;
      content: string;
      totalLines: number;
      fromLine: number;
      toLine: number;
    }>
  >;
  /**
   * Creates or overwrites a file with `content`: text, or raw bytes (an upload; bytes that are
   * not UTF-8 text make a file the text tools do not read, see {@link Refusal} `not_text`).
   */
  write(
    path: string,
    content: string | Uint8Array,
    meta: WriteMeta,
  ): Promise<
    WsResult<{
      path: string;
      bytes: number;
      created: boolean;
      checkpoint: string | null;
      updatedAt: string;
    }>
  >;
  /** Removes a file, after an automatic checkpoint when one is needed (so it can be undone). */
  remove(
    path: string,
    meta: WriteMeta,
  ): Promise<WsResult<{ path: string; checkpoint: string | null }>>;
  /** A file's bytes as stored, with its entry and its content hash (sha256 hex). */
  download(
    path: string,
  ): Promise<WsResult<{ entry: WorkspaceEntry; bytes: Uint8Array; hash: string }>>;
  edit(
    path: string,
    oldText: string,
    newText: string,
    meta: WriteMeta,
  ): Promise<WsResult<{ path: string; bytes: number; checkpoint: string | null }>>;
  list(prefix?: string): Promise<WsResult<{ entries: WorkspaceEntry[]; total: number }>>;
  /**
   * Every file listed and the whole text of `paths` (null where missing), in one call: what a
   * turn's prompt needs (the listing, PROGRESS.json, HANDOFF.md) without three round trips.
   */
  snapshot(
    paths: string[],
    options?: { memory?: boolean; history?: number },
  ): Promise<
    WsResult<{
      entries: WorkspaceEntry[];
      total: number;
      texts: Record<string, string | null>;
      /** With `memory`: the owner's memory with this agent (see {@link WorkspaceApi.memory}). */
      memory?: string | null;
      /** With `history`: that many of the newest changes, newest first. */
      changes?: ChangeEntry[];
    }>
  >;
  /**
   * The versions of `path` the checkpoints hold, newest first (each distinct content once, at
   * most `limit`): where a damaged file's last good version is found.
   */
  versions(
    path: string,
    limit?: number,
  ): Promise<
    WsResult<{ versions: Array<{ checkpoint: string; createdAt: string; text: string }> }>
  >;
  /** The text `path` had at checkpoint `checkpoint`. */
  readAt(checkpoint: string, path: string): Promise<WsResult<{ text: string }>>;
  /** The owner's memory with this workspace's agent (CONTEXT.md), or null: no R2 read once kept. */
  memory(): Promise<string | null>;
  /** Appends to or replaces that memory (the workspace object is its only writer). */
  memoryWrite(content: string, mode: MemoryMode): Promise<WsResult<{ chars: number }>>;
  grep(
    pattern: string,
    options?: { path?: string; maxResults?: number },
  ): Promise<
    WsResult<{
      matches: Array<{ path: string; line: number; text: string }>;
      filesSearched: number;
      truncated: boolean;
    }>
  >;
  checkpointCreate(label: string, meta: WriteMeta): Promise<WsResult<CheckpointInfo>>;
  checkpointList(): Promise<WsResult<{ checkpoints: CheckpointInfo[] }>>;
  /** Restores a checkpoint after taking a checkpoint of the current state (so restore is reversible). */
  checkpointRestore(
    id: string,
    meta: WriteMeta,
  ): Promise<WsResult<{ restored: string; backup: string; files: number }>>;
  /** The checkpoint taken before the task's first change, if the task changed anything. */
  taskCheckpoint(taskId: string): Promise<string | null>;
  /** Writes the note of a task that ended: HANDOFF.md, and decisions.log when it has new decisions. */
  endNote(input: TaskEndInput): Promise<WsResult<{ written: string[] }>>;
}
