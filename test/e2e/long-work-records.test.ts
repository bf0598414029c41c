/**
 * The records of long work under `wrangler dev`, with the official SDK client and the scripted
 * model (the records script, test/helpers/records-script.ts, which
 * test/integration/long-work-records.test.ts plays in workerd): five tasks of one conversation in
 * one workspace; each next task's environment note shows what the one before really did (its
 * progress_log.md entry), the tests the harness saw run without any `feature_update`, and a test
 * a task broke, first.
 */
import { ClientFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as script from "../helpers/long-work-script.ts";
import { expectProgressRead, expectRecordNotes, RECORDS_TURNS } from "../helpers/records-script.ts";
import { asTask, stateOf, type Task, textRequest } from "./client.ts";
import { addScenario } from "./scenarios.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";

// A conversation of its own on the shared server: its workspace is this file's alone.
let harness: SharedHarness;

beforeAll(async () => {
  harness = await sharedScriptedHarness();
});

afterAll(async () => {
  await harness?.release();
});

/** Sends one message (in `contextId`'s conversation when given) and returns the ended task. */
async function send(text: string, contextId?: string): Promise<Task> {
  const client = await new ClientFactory().createFromUrl(`${harness.server.url}/agents/assistant/`);
  return asTask(
    await client.sendMessage(textRequest(text, {}, contextId === undefined ? {} : { contextId })),
  );
}

/** The messages of each model request a scenario got. */
const requestsOf = (scenarioId: string) =>
  harness.fake.store
    .requests(scenarioId)
    .map((r) => (r.body as { messages: script.RequestMessages }).messages);

describe("the records of long work under wrangler dev", () => {
  it("record what each task did, the tests the harness saw, and start where the last ended", async () => {
    const notes: string[] = [];
    const ids: string[] = [];
    let contextId: string | undefined;
    let last: string[] = [];
    for (const [i, turns] of RECORDS_TURNS.entries()) {
      const s = addScenario(harness.fake.store, turns, "e2e-records");
      const task = await send(`${i === 0 ? "build slug" : "continue"} ${s.marker}`, contextId);
      expect(stateOf(task)).toBe("TASK_STATE_COMPLETED");
      contextId = task.contextId;
      ids.push(task.id);
      notes.push(script.openingNote(requestsOf(s.id)));
      last = script.toolResultTexts(requestsOf(s.id));
    }
    expectRecordNotes(notes, ids);
    expectProgressRead(last);
  }, 300_000);
});
