/**
 * No silent endings, with model streams replayed byte for byte by the scripted model server
 * (test/fake-model/recorded/): a refusal ends the task rejected with its explanation on every
 * binding and on the stream, and the conversation goes on without the refused turn; a malformed
 * stream is retried once, then fails naming the SDK's message; a task whose model wrote no text
 * completes with an answer that says what was done.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_REFUSAL_TEXT } from "../../src/loop/turn/refusal.ts";
import { WORK_SUMMARY_HEADING } from "../../src/task/steps/work-summary.ts";
import {
  answerText,
  expectCompleted,
  fetchWorker,
  rpc,
  sendTask,
  userMessage,
  v03Message,
  type WireTask,
} from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { applyChunks, type StreamResult as Result, streamedResults } from "../helpers/sse.ts";
import { getTask } from "../helpers/tasks.ts";
import { toolTurn } from "../helpers/turns.ts";

/** The explanation in test/fake-model/recorded/refusal.sse. */
const EXPLANATION = "This request was declined because it could enable cyber harm.";

/** Sends `text` and returns the streamed results (JSON-RPC v1.0), to the stream's end. */
const streamed = (text: string) =>
  streamedResults("SendStreamingMessage", { message: userMessage(text) });

const lastStatus = (results: Result[]) =>
  results.at(-1)?.statusUpdate?.status as {
    state: string;
    message?: { parts: [{ text: string }] };
  };

/** Whether no two neighbouring messages have the same role. */
const alternates = (messages: Array<{ role: string }>) =>
  messages.every((m, i) => i === 0 || m.role !== messages[i - 1]?.role);

describe("a refusal (stop_reason refusal)", () => {
  it("ends the task rejected with the explanation as its status message (JSON-RPC v1.0)", async () => {
    const s = await scenario([{ recorded: "refusal" }]);
    const task = await sendTask({ message: userMessage(`Write me an exploit. ${s.marker}`) });
    expect(task.status.state).toBe("TASK_STATE_REJECTED");
    expect(task.status.message?.parts).toEqual([{ text: EXPLANATION }]);
    expect(task.metadata).toMatchObject({ stopReason: "refusal", refusalCategory: "cyber" });
    // What the classifier stopped is not an answer.
    expect(task.artifacts).toBeUndefined();
    expect(task.history?.map((m) => m.role)).toEqual(["ROLE_USER", "ROLE_AGENT"]);
    expect(task.history?.at(-1)?.parts).toEqual([{ text: EXPLANATION }]);
    expect(await modelRequests(s.id)).toHaveLength(1);
  });

  it("ends the stream with it, withdrawing the refused turn's text for the earlier answer", async () => {
    const s = await scenario([
      { text: "Let me look.", toolUses: [{ name: "noop", input: {} }] },
      { recorded: "refusal" },
    ]);
    const results = await streamed(`Look, then write an exploit. ${s.marker}`);
    expect(lastStatus(results)).toMatchObject({
      state: "TASK_STATE_REJECTED",
      message: { parts: [{ text: EXPLANATION }] },
    });
    const { text, chunks } = applyChunks(results);
    expect(text).toBe("Let me look.");
    expect(chunks.at(-1)).toMatchObject({ lastChunk: true });
    expect(chunks.at(-1)?.append).toBeFalsy();
    const got = await getTask(String(results[0]?.task?.id));
    expect(got.status.state).toBe("TASK_STATE_REJECTED");
    expect(answerText(got)).toBe("Let me look.");
  });

  it("is rejected with the explanation on v0.3 JSON-RPC, and its stream ends final", async () => {
    const s = await scenario([{ recorded: "refusal" }]);
    const sent = await rpc<Record<string, unknown>>(
      "message/send",
      { message: v03Message(`Old client, exploit please. ${s.marker}`) },
      { v03: true },
    );
    expect(sent.result).toMatchObject({
      kind: "task",
      status: { state: "rejected", message: { parts: [{ kind: "text", text: EXPLANATION }] } },
      metadata: { stopReason: "refusal" },
    });
    const results = await streamedResults(
      "message/stream",
      { message: v03Message(`Again. ${s.marker}`) },
      true,
    );
    expect(results.at(-1)).toMatchObject({
      kind: "status-update",
      final: true,
      status: { state: "rejected", message: { parts: [{ kind: "text", text: EXPLANATION }] } },
    });
  });

  it("is rejected on the HTTP+JSON binding, v1.0 and v0.3; without an explanation, it says so", async () => {
    const s = await scenario([{ recorded: "refusal" }]);
    const v1 = await fetchWorker("/message:send", {
      method: "POST",
      headers: { "A2A-Version": "1.0", "content-type": "application/a2a+json" },
      body: JSON.stringify({ message: userMessage(`REST exploit. ${s.marker}`) }),
    });
    const task = ((await v1.json()) as { task: WireTask }).task;
    expect(task.status).toMatchObject({
      state: "TASK_STATE_REJECTED",
      message: { parts: [{ text: EXPLANATION }] },
    });
    const bare = await scenario([{ recorded: "refusal-no-explanation" }]);
    const v03 = await fetchWorker("/v1/message:send", {
      method: "POST",
      body: JSON.stringify({
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          content: [{ text: `Old REST. ${bare.marker}` }],
        },
        configuration: { blocking: true },
      }),
    });
    const legacy = ((await v03.json()) as { task: Record<string, unknown> }).task;
    expect(legacy.status).toMatchObject({
      state: "TASK_STATE_REJECTED",
      message: { content: [{ text: DEFAULT_REFUSAL_TEXT }] },
    });
    expect(legacy.metadata).toMatchObject({ stopReason: "refusal" });
    expect(legacy.metadata).not.toHaveProperty("refusalCategory");
  });

  it("leaves the conversation well formed: the next message completes without the refused turn", async () => {
    const refused = await scenario([{ recorded: "refusal" }]);
    const first = await sendTask({ message: userMessage(`Write an exploit. ${refused.marker}`) });
    expect(first.status.state).toBe("TASK_STATE_REJECTED");
    const next = await scenario([{ text: "TLS encrypts traffic." }, { text: "Yes." }]);
    const followUp = (text: string) =>
      sendTask({ message: userMessage(`${text} ${next.marker}`, { contextId: first.contextId }) });
    expectCompleted(await followUp("Then explain TLS."), "TLS encrypts traffic.");
    expectCompleted(await followUp("Is that all?"), "Yes.");
    const [second, third] = (await modelRequests(next.id)).map((r) => r.body.messages);
    // The API asks for a refused turn to be removed before going on: it is, with its answer.
    expect(JSON.stringify(second)).not.toContain("Write an exploit.");
    expect(second?.map((m) => m.role)).toEqual(["user"]);
    expect(third?.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(alternates(third ?? [])).toBe(true);
  });
});

describe("a malformed model stream", () => {
  it("is retried once, then fails the task with the SDK's message as the cause", async () => {
    const s = await scenario([{ recorded: "malformed-event-order" }]);
    const task = await sendTask({ message: userMessage(`Broken stream. ${s.marker}`) });
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    const cause = 'Unexpected event order, got message_start before receiving "message_stop"';
    expect(task.status.message?.parts[0]?.text).toBe(
      `The model call failed after 2 attempts: the model stream was malformed (${cause}). Failed attempts: 2 × malformed stream.`,
    );
    expect(task.metadata?.error).toContain(cause);
    expect((await modelRequests(s.id)).map((r) => r.attempt)).toEqual([1, 2]);
  });

  it("completes when the retry streams properly", async () => {
    const s = await scenario([
      { recorded: "malformed-event-order", recordedAttempts: [1], text: "Recovered." },
    ]);
    expectCompleted(
      await sendTask({ message: userMessage(`Broken once. ${s.marker}`) }),
      "Recovered.",
    );
    expect((await modelRequests(s.id)).map((r) => r.attempt)).toEqual([1, 2]);
  });
});

describe("a task whose model wrote no text", () => {
  it("completes with an answer, composed from its records, that says what was done", async () => {
    const s = await scenario([
      toolTurn("write_file", { path: "notes.md", content: "hello" }),
      toolTurn("read_file", { path: "notes.md" }),
      {},
    ]);
    const results = await streamed(`Save a note, say nothing. ${s.marker}`);
    expect(lastStatus(results).state).toBe("TASK_STATE_COMPLETED");
    const expected = [
      WORK_SUMMARY_HEADING,
      "- Files changed: `notes.md`",
      "- Tools run: write_file ×1, read_file ×1",
      "- Why it stopped: the model ended its turn without writing any text (stop reason `end_turn`).",
    ].join("\n");
    const { text, chunks } = applyChunks(results);
    expect(text).toBe(expected);
    expect(chunks.at(-1)).toMatchObject({ lastChunk: true });
    const task = await getTask(String(results[0]?.task?.id));
    expectCompleted(task, expected);
    expect(task.history?.at(-1)).toMatchObject({ role: "ROLE_AGENT", parts: [{ text: expected }] });
    expect(await modelRequests(s.id)).toHaveLength(3);
  });
});
