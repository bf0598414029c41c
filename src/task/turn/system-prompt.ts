/**
 * What a turn is told besides the conversation: its system prompt, made from what it reads before
 * each model call (memory, and at a task's first step the environment: the workspace's top-level
 * entries, PROGRESS.json's remaining items, the latest handoff, what the session start found), and
 * at that first step the task's environment note. Failures here never fail the turn silently: the
 * memory it cannot read is left out, and a workspace that cannot be read is reported
 * (`unreadable`), so that the task does not go on blind.
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { environmentNote } from "../../loop/prompt/environment.ts";
import { type PromptInputs, systemPrompt } from "../../loop/prompt/prompt.ts";
import {
  type EnvironmentRead,
  environmentWithoutWorkspace,
  readEnvironment,
} from "./environment-read.ts";
import type { MadeNote, TurnInputs } from "./turn.ts";

/**
 * Builds the system prompt of `turn` and, when its environment note is due, the note (with the
 * session start, see environment-read.ts). Storage it waits for: none for a new owner (nothing to
 * read yet), none from the workspace object when the turn's tools reach no file (`files`: the
 * scratchpad's listing at most), and none for the shared memory once the isolate has its copy;
 * the user's memory comes from the agent's workspace object (with the environment's snapshot, one
 * call, when the workspace is the agent's own). `unreadable`: the workspace could not be read for
 * the note (the task must not go on blind).
 */
export async function buildSystemPrompt(
  turn: TurnInputs,
): Promise<{ system: TextBlockParam[]; environment: MadeNote | null; unreadable?: string }> {
  turn.task.grant.begin(); // the model call's grant, reserved beside these reads (held-grant.ts)
  const [shared, own] = await Promise.all([
    turn.memory.shared().catch(() => null),
    ownContext(turn),
  ]);
  const inputs: PromptInputs = {
    agent: turn.agent,
    tools: turn.tools.names(),
    memory: { shared, user: own.user },
    environment: own.ok ? own.environment : null,
    now: new Date(),
    timeZone: turn.config.timeZone,
    delegation: turn.delegation,
  };
  return {
    system: [...systemPrompt(inputs), ...(turn.unavailable ? [turn.unavailable] : [])],
    environment: turn.environmentDue
      ? { text: environmentNote(inputs), session: inputs.environment?.session ?? null }
      : null,
    ...(own.ok ? {} : { unreadable: own.error }),
  };
}

/** An environment with nothing read of the workspace. */
const nothingRead = () => ({ entries: [], total: 0, remaining: [], handoff: null });

/** The user's memory and, when the note is due, the environment. */
async function ownContext(turn: TurnInputs): Promise<EnvironmentRead> {
  if (turn.task.newOwner) return { ok: true, user: null, environment: nothingRead() };
  if (!turn.files)
    return turn.environmentDue
      ? environmentWithoutWorkspace(turn)
      : { ok: true, user: null, environment: nothingRead() };
  if (!turn.environmentDue)
    return {
      ok: true,
      user: await turn.memory.user().catch(() => null),
      environment: nothingRead(),
    };
  return readEnvironment(turn);
}
