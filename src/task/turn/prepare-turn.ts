/**
 * Prepares a model turn ({@link Turn}, turn.ts) once per step, in named phases:
 *  1. reach: the turn's tools (the catalog, the agent's MCP servers, tool search: turn-tools.ts),
 *     the task's workspace, the agent's memory, the scratchpad, the remote-agent handle, who
 *     the task delegates to or was called by, and the live messages sent while it worked (taken
 *     into its conversation as user turns: task/conversation/live-input.ts);
 *  2. tell: the system prompt and, at a task's first step, the environment note with what the
 *     session start found (system-prompt.ts), put in front of the task's first message; a
 *     workspace that cannot be read ends the step here, before any model call;
 *  3. fit: the conversation compacted when it is over the token budget (compact.ts).
 * The loop driver then runs the turn (step-deps.ts binds it to the loop's `runStep`). Nothing here
 * decides what follows the step: the driver keeps the lease, the deadline, the abort and the
 * outcome.
 */
import type { StepOutcome } from "../../loop/step-types.ts";
import { remoteAgentsOfTask } from "../../remote/handle.ts";
import { withCardDescriptions } from "../../subagents/registry.ts";
import { takeLive } from "../conversation/live-input.ts";
import { attachEnvironment, environmentNoteOf, reachedFiles } from "../store/environment-note.ts";
import { lineageOf, remoteParentOf, scratchIdOf } from "../store/lineage.ts";
import type { TaskRecord } from "../store/task-store.ts";
import { compactIfNeeded } from "./compact.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import type { Turn, TurnInputs, TurnSource } from "./turn.ts";
import { memoryAccess, taskWorkspace } from "./turn-resources.ts";
import { turnTools } from "./turn-tools.ts";

/** A turn ready to run, or the outcome that ends the step before its model call. */
export type PreparedTurn = { ok: true; turn: Turn } | { ok: false; outcome: StepOutcome };

/** Prepares the turn of a model step of `source`'s task (see the module header). */
export async function prepareTurn(source: TurnSource): Promise<PreparedTurn> {
  const inputs = await reach(source);
  const told = await buildSystemPrompt(inputs);
  if (told.unreadable !== undefined) return { ok: false, outcome: unreadable(told.unreadable) };
  if (told.environment !== null)
    attachEnvironment(source.task, told.environment.text, inputs.files);
  const turn: Turn = { ...inputs, system: told.system, environment: told.environment };
  await compactIfNeeded(turn);
  return { ok: true, turn };
}

/** Phase 1: what the turn reaches. */
async function reach(source: TurnSource): Promise<TurnInputs> {
  const { env, config, task, record, agent } = source;
  const caller = callerOf(record);
  const tools = await turnTools(source, caller !== null);
  // A task whose first step had no file tools may have some now (its agent changed).
  if (tools.files) reachedFiles(task);
  const remote = remoteAgentsOfTask(env, config, record);
  return {
    ...source,
    ...tools,
    workspace: taskWorkspace(env, record),
    ownWorkspace: lineageOf(record).rootAgent === agent.name,
    memory: memoryAccess(env, agent.name, record.owner, (work) => task.background(work)),
    environmentDue: environmentNoteOf(task) === undefined,
    live: takeLive(task),
    scratchId: await scratchIdOf(record),
    remote,
    delegation:
      caller !== null
        ? { calledBy: caller }
        : { subagents: await withCardDescriptions(source.subagents.types(), remote) },
  };
}

/**
 * Who started the task as its sub-agent: its root agent for a local sub-agent's task, the calling
 * agent for a task a remote harness started; null for a task a client started.
 */
function callerOf(record: TaskRecord): string | null {
  if (record.parentTaskId !== null) return lineageOf(record).rootAgent;
  return remoteParentOf(record)?.agent ?? null;
}

/** The step's end when the workspace cannot be read for the environment note. */
function unreadable(error: string): StepOutcome {
  return {
    kind: "failed",
    message: `The workspace could not be read (${error.slice(0, 200)}), so the task stopped before its first model call rather than work without its files and state. Send the message again to retry.`,
  };
}
