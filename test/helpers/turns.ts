/**
 * Scripted model turns for tests, in workerd and in Node alike (no bindings): a turn that calls
 * one tool, with or without a text block before the call, and the inputs of the tools scenarios
 * call most (a delegation, a question with a form).
 */
import type { Turn } from "../../src/model/scripted/turn.ts";

/**
 * A scripted turn that calls one tool. `text` (when given, even "") is a text block before the
 * call; without it the turn has no text block at all.
 */
export function toolTurn(name: string, input: Record<string, unknown>, text?: string): Turn {
  return { ...(text === undefined ? {} : { text }), toolUses: [{ name, input }] };
}

/** {@link toolTurn} with a text block always (empty unless given), as most scenarios script it. */
export const textToolTurn = (name: string, input: Record<string, unknown>, text = ""): Turn =>
  toolTurn(name, input, text);

/** The `task` tool's input: delegate `prompt` to the sub-agent (or registry agent) `agent`. */
export const taskInput = (agent: string, description: string, prompt: string) => ({
  subagent_type: agent,
  description,
  prompt,
});

/**
 * `ask_user`'s input: `question` with a form of one required choice, `field`, among `choices`
 * (`more`: further fields, optional).
 */
export const askChoice = (
  question: string,
  field: string,
  choices: string[],
  more: Record<string, unknown> = {},
) => ({
  question,
  fields: { [field]: { type: "string", enum: choices }, ...more },
  required: [field],
});
