/**
 * Helpers for tests inside workerd that script the fake Messages API (test/fake-model), which
 * runs on 127.0.0.1 in the test process: register a scenario, read the requests it received.
 */
import { env } from "cloudflare:workers";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { toolTurn } from "./turns.ts";

/** A fresh scenario id and its marker, for turns that name their own scenario. */
export function scenarioId(): { id: string; marker: string } {
  const id = `s-${crypto.randomUUID()}`;
  return { id, marker: `[[scenario:${id}]]` };
}

/**
 * Registers a scripted scenario with the fake model (`id`: one {@link scenarioId} made; `inOrder`:
 * turns played in the order of the requests, see ScenarioSchema); returns the marker to put in a
 * message.
 */
export async function scenario(
  turns: Turn[],
  options: { inOrder?: boolean; id?: string } = {},
): Promise<{ id: string; marker: string }> {
  const id = options.id ?? scenarioId().id;
  const response = await fetch(`${env.FAKE_MODEL_URL}/_scripted/scenarios`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id, turns, ...(options.inOrder ? { inOrder: true } : {}) }),
  });
  if (response.status !== 201) throw new Error(`scenario rejected: ${await response.text()}`);
  return { id, marker: `[[scenario:${id}]]` };
}

/** A request the fake model received. */
export interface FakeRequest {
  turnIndex: number;
  attempt: number;
  status: number;
  body: { system?: unknown; messages: Array<{ role: string; content: unknown }>; model: string };
  /** The body exactly as the fake model received it. */
  bodyText: string;
}

/** The requests the fake model received for a scenario, oldest first. */
export async function modelRequests(scenarioId: string): Promise<FakeRequest[]> {
  const response = await fetch(
    `${env.FAKE_MODEL_URL}/_scripted/requests?scenario=${encodeURIComponent(scenarioId)}`,
  );
  return ((await response.json()) as { requests: FakeRequest[] }).requests;
}

/** The tool names offered in a scenario's `index`-th model request. */
export async function offeredTools(scenarioId: string, index = 0): Promise<string[]> {
  const request = (await modelRequests(scenarioId))[index];
  if (!request) throw new Error(`no model request ${index} for ${scenarioId}`);
  const body = request.body as unknown as { tools?: Array<{ name: string }> };
  return (body.tools ?? []).map((t) => t.name);
}

/**
 * The turns that leave a caller's data in each store kept per user: workspace `files` (path ->
 * content; each written, then read), a `memory` note and `scratch` files (path -> content).
 */
export function savingTurns(
  files: Record<string, string>,
  memory: string,
  scratch: Record<string, string>,
): Turn[] {
  return [
    ...Object.entries(files).flatMap(([path, content]) => [
      toolTurn("write_file", { path, content }),
      toolTurn("read_file", { path }),
    ]),
    toolTurn("memory_write", { content: memory }),
    ...Object.entries(scratch).map(([path, content]) =>
      toolTurn("scratch_write", { path, content }),
    ),
  ];
}

/** The tool_result texts in the last request the model saw for a scenario ("ERROR " marks errors). */
export async function toolResults(scenarioId: string): Promise<string[]> {
  const out: string[] = [];
  for (const m of (await modelRequests(scenarioId)).at(-1)?.body.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type: string; content?: string; is_error?: boolean }>)
      if (b.type === "tool_result") out.push(`${b.is_error ? "ERROR " : ""}${b.content ?? ""}`);
  }
  return out;
}
