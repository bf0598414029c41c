/**
 * The state guard: the files that carry long work from task to task are written only by the tool or
 * the harness step that keeps each, never as ordinary files. {@link STATE_FILES} is the one list of
 * them, with who writes each. The workspace's file operations (files/file-ops.ts, so every write
 * and edit, whichever tool or caller asked for it) refuse to change one unless the write's metadata
 * says `harness: true`: only the harness's own code builds that metadata (the keeping tools and the
 * end-of-task note), never the model. A whole-checkpoint restore puts state files back with
 * everything else (the harness's rollback); there is no single-file restore to guard. A state file
 * is its exact name at the workspace root after path normalisation (`./PROGRESS.json` is
 * PROGRESS.json); `notes/PROGRESS.json` or `progress.json` are ordinary files: the workspace is
 * case-sensitive and the harness reads only the exact root names. Pure: no I/O.
 */
import type { WriteMeta } from "../types.ts";
import { AGENT_STATE_FILE } from "./agent-state.ts";
import { FEATURE_STATUS_FILE } from "./feature-status.ts";
import { PROGRESS_LOG_FILE } from "./progress-log.ts";
import { DECISIONS_FILE, HANDOFF_FILE, PROGRESS_FILE } from "./state-files.ts";

/** A state file and what keeps it. */
export interface StateFile {
  /** Its exact name at the workspace root. */
  name: string;
  /** The tool that writes it, or null: the harness writes it at the end of each task. */
  tool: string | null;
  /** What the agent should do instead of writing it (said in the refusal). */
  instead: string;
}

const RECORD = "record what the next task needs with progress_update";

/** Every state file: the guard's only list. A new state file and its writer are added here. */
export const STATE_FILES: readonly StateFile[] = [
  { name: PROGRESS_FILE, tool: "progress_update", instead: "change it with progress_update" },
  { name: FEATURE_STATUS_FILE, tool: "feature_update", instead: "change it with feature_update" },
  { name: HANDOFF_FILE, tool: null, instead: `it is made from PROGRESS.json: ${RECORD}` },
  { name: DECISIONS_FILE, tool: null, instead: "record decisions in PROGRESS.json's decisions" },
  { name: PROGRESS_LOG_FILE, tool: null, instead: RECORD },
  { name: AGENT_STATE_FILE, tool: null, instead: RECORD },
];

/** The state file at a normalised workspace path, if it is one (exact root names only). */
export function stateFileAt(path: string): StateFile | undefined {
  return STATE_FILES.find((file) => file.name === path);
}

/**
 * Why a write or edit of the normalised workspace path `path` is refused, or null when it may go
 * ahead: an ordinary file, or a state file written by the harness (`meta.harness === true`).
 */
export function stateWriteRefusal(path: string, meta: WriteMeta | undefined): string | null {
  const file = stateFileAt(path);
  if (!file || meta?.harness === true) return null;
  const keeper = file.tool ?? "the harness at the end of each task";
  return `${file.name} is kept by ${keeper}; it cannot be written or edited as a file (write_file, edit_file). Nothing was changed: ${file.instead}.`;
}
