/**
 * Scripted model turns for tests, in workerd and in Node alike (no bindings): a turn that calls
 * one tool, with or without a text block before the call.
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
