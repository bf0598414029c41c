/**
 * How a change reaches the manifest, with the automatic checkpoints it needs (run inside one
 * transaction, after the blob is stored):
 *  - before overwriting or editing a file that changed after the latest checkpoint (or when
 *    there is none), a checkpoint `before <write|edit> of <path>`, except when that latest
 *    checkpoint was taken automatically before changing this very file and nothing else changed
 *    since (repeated writes of one file take one checkpoint);
 *  - before a task's first change, a checkpoint `before task <taskId>` recorded as the task's
 *    checkpoint; when nothing changed since the latest checkpoint, that one is recorded instead,
 *    and a checkpoint taken for the file serves the task too (one checkpoint per change at most).
 *    A person's change (an upload, a file sent with a message) is no task's work: it takes no
 *    task checkpoint, so a rollback of the task keeps it.
 * A deletion is a change like an overwrite (the file's version is checkpointed first if needed).
 * Synchronous SQL only.
 */
import type { Checkpoints } from "./checkpoints.ts";
import type { Manifest } from "./manifest.ts";

/** A file's new version, its blob already stored; or its deletion (`hash`: the version removed). */
export interface Change {
  path: string;
  hash: string;
  size: number;
  op: "write" | "edit" | "delete";
  /** The task that made it, or "" (a person's change through the files API). */
  taskId: string;
  /** Whether the path already held a file. */
  existing: boolean;
  /** The agent whose task made it (for the change history). */
  agent?: string;
  /** The person who made it (see WriteMeta.person). */
  person?: string;
  /** One line saying what changed, and the lines added and removed. */
  line: string;
  added: number;
  removed: number;
}

/** Whether overwriting `path` would lose a version no checkpoint holds. */
export function fileNeedsCheckpoint(
  manifest: Manifest,
  checkpoints: Checkpoints,
  path: string,
): boolean {
  const latest = checkpoints.latest();
  const row = manifest.get(path);
  if (!latest) return true;
  if (!row || row.seq <= latest.seq) return false;
  const guarded = latest.automatic === 1 && latest.path === path;
  return !(guarded && !manifest.othersChangedAfter(latest.seq, path));
}

/** A harness write of a state file: where it points, and nothing the change history keeps. */
export type HarnessChange = Pick<Change, "path" | "hash" | "size">;

/**
 * Applies harness changes (state files: no automatic checkpoints, no change-history rows), each
 * its own change number, allocated at once.
 */
export function commitHarnessChanges(manifest: Manifest, changes: readonly HarnessChange[]): void {
  if (changes.length === 0) return;
  const now = new Date().toISOString();
  let seq = manifest.nextSeq(changes.length);
  for (const change of changes) manifest.put(change.path, change.hash, change.size, now, seq++);
}

/** Applies `change`; returns the id of the checkpoint it took first, or null. */
export function commitChange(
  manifest: Manifest,
  checkpoints: Checkpoints,
  change: Change,
): string | null {
  const now = new Date().toISOString();
  const latest = checkpoints.latest();
  const fileNeeds = change.existing && fileNeedsCheckpoint(manifest, checkpoints, change.path);
  const taskNeeds = change.person === undefined && checkpoints.forTask(change.taskId) === null;
  let taken: string | null = null;
  if (!fileNeeds && taskNeeds && latest && latest.seq === manifest.changeSeq()) {
    checkpoints.setForTask(change.taskId, latest.id);
  } else if (fileNeeds || taskNeeds) {
    const label = fileNeeds
      ? `before ${change.op} of ${change.path}`
      : `before task ${change.taskId}`;
    taken = checkpoints.create(label, now, {
      automatic: true,
      taskId: change.taskId,
      ...(fileNeeds ? { path: change.path } : {}),
    }).id;
    if (taskNeeds) checkpoints.setForTask(change.taskId, taken);
  }
  const seq = manifest.nextSeq();
  if (change.op === "delete") manifest.remove(change.path);
  else manifest.put(change.path, change.hash, change.size, now, seq);
  return taken;
}

/**
 * Restores checkpoint `id` after an automatic checkpoint of the current state (recorded as the
 * task's checkpoint if the task had none), so the restore can itself be undone.
 */
export function restoreCheckpoint(
  checkpoints: Checkpoints,
  id: string,
  taskId: string,
): { restored: string; backup: string; files: number } {
  const now = new Date().toISOString();
  const backup = checkpoints.create(`before restore of ${id}`, now, { automatic: true, taskId });
  checkpoints.setForTask(taskId, backup.id);
  const files = checkpoints.restore(id, now);
  return { restored: id, backup: backup.id, files };
}
