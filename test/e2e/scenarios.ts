/**
 * Scripting an e2e test's fake model in-process, through its ScenarioStore: a scenario under a
 * fresh id with the marker that selects it, and the tool results its last model request carried.
 * Node only.
 */
import type { ScenarioStore } from "../../src/model/scripted/store.ts";
import type { Turn } from "../../src/model/scripted/turn.ts";

/** Registers `turns` as the scenario `<prefix>-<uuid>`; its id and the marker for a message. */
export function addScenario(
  store: ScenarioStore,
  turns: Turn[],
  prefix = "e2e",
): { id: string; marker: string } {
  const id = `${prefix}-${crypto.randomUUID()}`;
  store.addScenario({ id, turns });
  return { id, marker: `[[scenario:${id}]]` };
}

/** The tool results of the last model request of a scenario (a result that is not text, as JSON). */
export function lastToolResults(store: ScenarioStore, scenarioId: string): string[] {
  const last = store.requests(scenarioId).at(-1)?.body as
    | { messages: Array<{ content: unknown }> }
    | undefined;
  const out: string[] = [];
  for (const m of last?.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const block of m.content as Array<{ type: string; content?: unknown }>)
      if (block.type === "tool_result")
        out.push(
          typeof block.content === "string" ? block.content : JSON.stringify(block.content ?? ""),
        );
  }
  return out;
}
