/**
 * The conformance agent's program: the scenario a message asks for (conformance-scenarios.ts),
 * chosen by prefix, the longest that matches: of the message's `messageId` (how the official TCK
 * signals it), else of its first part's text (how ACTS does). A follow-up without a prefix of its
 * own goes as the scenario that began the task says (a multi-turn conversation ends at "done");
 * any other message is echoed as an artifact and the task waits for the next one. Only this module,
 * its scenarios and agents/conformance/IDENTITY.md know about the kits. Pure: no I/O.
 */
import type { Message } from "../protocol/wire.ts";
import { SCENARIOS, type Scenario } from "./conformance-scenarios.ts";
import type { AgentProgram, ProgramStep } from "./types.ts";

/** The scenario whose prefix is the longest that starts `key`, if any. */
function longestPrefix(key: string | undefined): Scenario | undefined {
  if (!key) return undefined;
  let found: Scenario | undefined;
  for (const scenario of SCENARIOS)
    if (key.startsWith(scenario.prefix) && scenario.prefix.length > (found?.prefix.length ?? 0))
      found = scenario;
  return found;
}

/** The scenario a message asks for: by its messageId (TCK), else its first part's text (ACTS). */
const scenarioOf = (message: Message): Scenario | undefined =>
  longestPrefix(message.messageId) ?? longestPrefix(message.parts[0]?.text?.trimStart());

/**
 * Any other message: the agent echoes it as an artifact and waits for the next one
 * (input-required), so the task stays open for follow-ups, cancellation and history, which is
 * what clients without a scenario prefix (the v0.3 kit) go on to test; spec 0.3.0 §7.1 and
 * spec 1.0.1 §3.1.1 allow those only on a task that has not ended.
 */
function fallback(message: Message): ProgramStep[] {
  const said = message.parts
    .map((p) => p.text ?? "")
    .join(" ")
    .trim();
  const asked = `Unhandled messageId prefix: ${message.messageId.slice(0, 100)}. Send another message, or cancel the task.`;
  return [
    {
      effects: [
        {
          kind: "artifact",
          artifact: { artifactId: "echo", parts: [{ text: `Received: ${said || "(no text)"}` }] },
          lastChunk: true,
        },
      ],
      end: { kind: "input-required", parts: [{ text: asked }] },
    },
  ];
}

/** The steps for `message`: its own scenario's, a follow-up's, or the echo. */
function stepsFor(message: Message, opening: Message | null): ProgramStep[] {
  const own = scenarioOf(message);
  if (own) return own.steps;
  const begun = opening ? scenarioOf(opening) : undefined;
  return begun?.followUp?.(message) ?? fallback(message);
}

/** The conformance agent. */
export const conformanceProgram: AgentProgram = {
  reply: (message) => scenarioOf(message)?.reply ?? null,
  step(message, index, opening) {
    return stepsFor(message, opening)[index] ?? { effects: [], end: { kind: "complete" } };
  },
};
