/**
 * Assembles the system prompt for a model turn. Stable parts come first (the agent's identity),
 * volatile parts last (the date), so the stable prefix can be cached.
 */
import type { AgentDefinition } from "../agents/identity.ts";

/** The system prompt for `agent` at time `now`. */
export function systemPrompt(agent: AgentDefinition, now: Date): string {
  const date = now.toISOString().slice(0, 10);
  const time = now.toISOString().slice(11, 16);
  return `${agent.systemPrompt}\n\n---\nCurrent date and time: ${date} ${time} UTC.`;
}
