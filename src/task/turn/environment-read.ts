/**
 * What a task's first step reads for its environment note: one workspace snapshot (the listing,
 * every state file, the newest changes and, when the workspace is the agent's own, the owner's
 * memory), the session start over it when it holds state files (session-start.ts), and the
 * conversation's scratchpad listing (read beside the snapshot). A workspace that cannot be read
 * (after one retry) is reported as such, so the task ends with a clear status instead of letting
 * the agent work blind.
 */
import type { EnvironmentInputs } from "../../loop/prompt/environment.ts";
import { log } from "../../platform/logging.ts";
import { runWorkspaceTests } from "../../tools/run-code/run-code.ts";
import { HANDOFF_FILE, PROGRESS_FILE, parseProgress } from "../../workspace/state/state-files.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import {
  continuesWork,
  HISTORY_ENTRIES,
  type SessionDeps,
  STATE_FILE_NAMES,
  startSession,
} from "./session-start.ts";
import type { TurnInputs } from "./turn.ts";
import { codeSandboxFor, scratchListing } from "./turn-resources.ts";

/** The environment, or why the workspace could not be read. */
export type EnvironmentRead =
  | { ok: true; user: string | null; environment: NonNullable<EnvironmentInputs["environment"]> }
  | { ok: false; user: string | null; error: string };

type Snapshot = Awaited<ReturnType<WorkspaceApi["snapshot"]>>;

/** Scratchpad files the note lists. */
const SCRATCH_LISTED = 10;

/**
 * What the session start of `turn` needs (see session-start.ts): the regression run through
 * run_code's sandbox when the agent has run_code, the conversation's scratchpad listing when it
 * has the scratchpad.
 */
function sessionDeps(turn: TurnInputs): SessionDeps {
  const { env, config, agent, record, workspace } = turn;
  const tools = turn.tools.names();
  const sandbox = codeSandboxFor(env, agent, config).codeSandbox;
  return {
    config,
    task: { taskId: record.id, agent: agent.name },
    emit: (event) => turn.task.emitHarnessEvent(event),
    ...(sandbox && tools.includes("run_code")
      ? {
          runTests: (tests, wallMs) =>
            runWorkspaceTests({ workspace, config, codeSandbox: sandbox }, tests, wallMs),
        }
      : {}),
    ...(tools.includes("scratch_read")
      ? { scratch: (limit) => scratchListing(env.FILES, record.owner, turn.scratchId, limit) }
      : {}),
  };
}

/** Reads the environment (and the owner's memory) for the first step of `turn`'s task. */
export async function readEnvironment(turn: TurnInputs): Promise<EnvironmentRead> {
  const deps = sessionDeps(turn);
  const options = { history: HISTORY_ENTRIES, ...(turn.ownWorkspace ? { memory: true } : {}) };
  const take = () =>
    turn.workspace
      .snapshot(STATE_FILE_NAMES, options)
      .catch((error: unknown): Snapshot => ({ ok: false, error: String(error) }));
  // The scratchpad's listing needs nothing of the snapshot: read beside it, not after.
  const scratched = deps.scratch?.(SCRATCH_LISTED).catch(() => undefined);
  const [first, other] = await Promise.all([
    take(),
    turn.ownWorkspace ? null : turn.memory.user().catch(() => null),
  ]);
  const listing = first.ok ? first : await take();
  if (!listing.ok) {
    log("warn", "workspace unreadable", { task: deps.task.taskId, error: listing.error });
    return { ok: false, user: other, error: listing.error };
  }
  const snap = listing.value;
  const user = turn.ownWorkspace ? (snap.memory ?? null) : other;
  const [session, scratch] = await Promise.all([
    continuesWork(snap.texts)
      ? startSession({
          workspace: turn.workspace,
          texts: snap.texts,
          changes: snap.changes ?? [],
          ...deps,
        })
      : undefined,
    scratched,
  ]);
  const progress = parseProgress(snap.texts[PROGRESS_FILE] ?? null);
  const top = snap.entries.filter((e) => !e.path.includes("/"));
  const dirs = [
    ...new Set(
      snap.entries
        .filter((e) => e.path.includes("/"))
        .map((e) => e.path.slice(0, e.path.indexOf("/"))),
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
export async function environmentWithoutWorkspace(turn: TurnInputs): Promise<EnvironmentRead> {
  const scratch = await sessionDeps(turn)
    .scratch?.(SCRATCH_LISTED)
    .catch(() => undefined);
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
