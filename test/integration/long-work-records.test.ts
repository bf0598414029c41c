/**
 * The records of long work, through the A2A endpoint with the scripted model (the records script,
 * test/helpers/records-script.ts; test/e2e/long-work-records.test.ts plays it under wrangler dev):
 * five tasks of one conversation, each next task's note showing what the one before really did.
 */
import { describe, expect, it } from "vitest";
import { rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import * as script from "../helpers/long-work-script.ts";
import { expectProgressRead, expectRecordNotes, RECORDS_TURNS } from "../helpers/records-script.ts";

const send = async (text: string, contextId: string) =>
  (await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(text, { contextId }) }))
    .result?.task as WireTask;

describe("the records of long work, task after task", () => {
  it("record what each task did, the tests the harness saw, and start where the last ended", async () => {
    const contextId = crypto.randomUUID();
    const notes: string[] = [];
    const ids: string[] = [];
    let last: string[] = [];
    for (const [i, turns] of RECORDS_TURNS.entries()) {
      const s = await scenario(turns);
      const task = await send(`${i === 0 ? "build slug" : "continue"} ${s.marker}`, contextId);
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      ids.push(task.id);
      const requests = (await modelRequests(s.id)).map((r) => r.body.messages);
      notes.push(script.openingNote(requests));
      last = script.toolResultTexts(requests);
    }
    expectRecordNotes(notes, ids);
    expectProgressRead(last);
  });
});
