/**
 * What a task's first step reads for its environment note: one workspace snapshot (the listing,
 * every state file, the newest changes and, when the workspace is the agent's own, the owner's
 * memory), the session start over it when it holds state files (session-start.ts), and the
 * conversation's scratchpad listing. A workspace that cannot be read (after one retry) is reported
 * as such, so the task ends with a clear status instead of letting the agent work blind.
 */
import type { Config } from "../../config/config.ts";
import type { HarnessEvent, MemoryAccess } from "../../loop/contracts.ts";
import type { EnvironmentInputs } from "../../loop/prompt/environment.ts";
import { log } from "../../platform/logging.ts";
import type { RunReport } from "../../tools/run-code/sandbox.ts";
import { HANDOFF_FILE, PROGRESS_FILE, parseProgress } from "../../workspace/state/state-files.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import { continuesWork, HISTORY_ENTRIES, STATE_FILE_NAMES, startSession } from "./session-start.ts";

/** What the session start needs beside the workspace. */
export interface SessionDeps {
  config: Config;
  task: { taskId: string; agent: string };
  /** Runs test files in the sandbox (the regression run); absent without run_code. */
  runTests?: (tests: string[], wallMs: number) => Promise<RunReport | { error: string }>;
  /** The conversation's scratchpad files (at most `limit`) and how many there are. */
  scratch?: (
    limit: number,
  ) => Promise<{ files: Array<{ path: string; size: number }>; total: number }>;
  emit(event: HarnessEvent): void;
}

/** The environment, or why the workspace could not be read. */
export type EnvironmentRead =
  | { ok: true; user: string | null; environment: NonNullable<EnvironmentInputs["environment"]> }
  | { ok: false; user: string | null; error: string };

type Snapshot = Awaited<ReturnType<WorkspaceApi["snapshot"]>>;

/** Scratchpad files the note lists. */
const SCRATCH_LISTED = 10;

/** Reads the environment (and the owner's memory) for a task's first step. */
export async function readEnvironment(input: {
  workspace: WorkspaceApi;
  ownWorkspace: boolean;
  memory: MemoryAccess;
  session: SessionDeps;
}): Promise<EnvironmentRead> {
  const options = { history: HISTORY_ENTRIES, ...(input.ownWorkspace ? { memory: true } : {}) };
  const take = () =>
    input.workspace
      .snapshot(STATE_FILE_NAMES, options)
      .catch((error: unknown): Snapshot => ({ ok: false, error: String(error) }));
  const [first, other] = await Promise.all([
    take(),
    input.ownWorkspace ? null : input.memory.user().catch(() => null),
  ]);
  const listing = first.ok ? first : await take();
  if (!listing.ok) {
    log("warn", "workspace unreadable", { task: input.session.task.taskId, error: listing.error });
    return { ok: false, user: other, error: listing.error };
  }
  const snap = listing.value;
  const user = input.ownWorkspace ? (snap.memory ?? null) : other;
  const [session, scratch] = await Promise.all([
    continuesWork(snap.texts)
      ? startSession({
          workspace: input.workspace,
          texts: snap.texts,
          changes: snap.changes ?? [],
          ...input.session,
        })
      : undefined,
    input.session.scratch?.(SCRATCH_LISTED).catch(() => undefined),
  ]);
  const progress = parseProgress(snap.texts[PROGRESS_FILE] ?? null);
  const top = snap.entries.filter((e) => !e.path.includes("/"));
  const dirs = [
    ...new Set(
      snap.entries.filter((e) => e.path.includes("/")).map((e) => e.path.split("/")[0] as string),
    ),
  ];
  return {
    ok: true,
    user,
    environment: {
      entries: [...dirs.map((d) => ({ path: `${d}/`, size: 0, updatedAt: "" })), ...top],
      total: dirs.length + top.length,
      remaining: progress.progress?.remaining ?? [],
      handoff: snap.texts[HANDOFF_FILE] ?? null,
      ...(session ? { session } : {}),
      ...(scratch && scratch.total > 0 ? { scratch } : {}),
    },
  };
}

/**
 * The environment of a task whose tools reach no workspace file: no workspace call, the
 * conversation's scratchpad listing at most (and no memory of the owner: only memory tools write it).
 */
export async function environmentWithoutWorkspace(session: SessionDeps): Promise<EnvironmentRead> {
  const scratch = await session.scratch?.(SCRATCH_LISTED).catch(() => undefined);
  return {
    ok: true,
    user: null,
    environment: {
      entries: [],
      total: 0,
      remaining: [],
      handoff: null,
      ...(scratch && scratch.total > 0 ? { scratch } : {}),
    },
  };
}
