/**
 * Whether a state file's text is sound: each JSON state file against its schema (PROGRESS.json,
 * feature_status.json, agent_state.json); the text ones (HANDOFF.md, decisions.log,
 * progress_log.md) need only be readable. The session start reports a damaged file with this
 * reason, and `state_restore` puts back only a version that passes. Pure: no I/O.
 */
import { AGENT_STATE_FILE, parseAgentState } from "./agent-state.ts";
import { FEATURE_STATUS_FILE, parseFeatureStatus } from "./feature-status.ts";
import { PROGRESS_FILE, parseProgress } from "./state-files.ts";

const CHECKS: Record<string, (text: string) => string | undefined> = {
  [PROGRESS_FILE]: (text) => parseProgress(text).invalid,
  [FEATURE_STATUS_FILE]: (text) => parseFeatureStatus(text).invalid,
  [AGENT_STATE_FILE]: (text) => parseAgentState(text).invalid,
};

/** Why `text` is not a sound `file`, or undefined when it is (or the file has no schema). */
export function stateFileProblem(file: string, text: string): string | undefined {
  return Object.hasOwn(CHECKS, file) ? CHECKS[file]?.(text) : undefined;
}
