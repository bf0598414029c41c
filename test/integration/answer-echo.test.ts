/**
 * A completed task's answer is in one place: the `answer` artifact. Its stream echoes the answer
 * once as a working status message marked with the answer-echo extension, just before the last
 * chunk, for clients that show only status messages (`@ag-ui/a2a`); the completed status carries
 * only a limit's note. Over v1.0 and v0.3, blocking and streaming; the echo is never stored.
 */
import { describe, expect, it } from "vitest";
import { ANSWER_ECHO_EXTENSION } from "../../src/protocol/extensions.ts";
import {
  answerText,
  rpc,
  sendTask,
  sendV03,
  userMessage,
  v03Message,
  type WireTask,
} from "../helpers/a2a.ts";
import { scenario } from "../helpers/fake-model.ts";
import { applyChunks, type StreamResult, streamedResults } from "../helpers/sse.ts";

type WireMessage = { parts: Array<{ text?: string }>; extensions?: string[]; kind?: string };
type Status = { state: string; message?: WireMessage };

const texts = (message: WireMessage | undefined) =>
  (message?.parts ?? []).map((p) => p.text ?? "").join("");
const isEcho = (status: Status | undefined) =>
  status?.message?.extensions?.includes(ANSWER_ECHO_EXTENSION) === true;
const NOTE = /^The answer was cut off at the agent's output limit \(\d+ tokens\)\.$/;

/** A stream's status updates (v1.0 `statusUpdate`, v0.3 `status-update`) and where each came. */
function statuses(results: readonly StreamResult[]): Array<{ at: number; status: Status }> {
  return results.flatMap((r, at) => {
    const update = (r.statusUpdate ?? (String(r.kind) === "status-update" ? r : undefined)) as
      | { status: Status }
      | undefined;
    return update ? [{ at, status: update.status }] : [];
  });
}

/** The index of a stream's last artifact update. */
const lastChunkAt = (results: readonly StreamResult[]) =>
  results.findLastIndex((r) => r.artifactUpdate ?? String(r.kind) === "artifact-update");

describe("the answer is in the artifact; the stream echoes it once for message-only clients", () => {
  it("v1.0: no answer in the completed status; one marked echo before the last chunk", async () => {
    const s = await scenario([{ text: "Forty-two." }, { text: "Forty-three.", chunkSize: 3 }]);
    const task = await sendTask({ message: userMessage(`q ${s.marker}`) });
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.status.message).toBeUndefined();
    expect(answerText(task)).toBe("Forty-two.");
    const results = await streamedResults("SendStreamingMessage", {
      message: userMessage(`again ${s.marker}`, { contextId: task.contextId }),
    });
    expect(applyChunks(results).text).toBe("Forty-three.");
    const all = statuses(results);
    const echoes = all.filter((s) => isEcho(s.status));
    expect(echoes).toHaveLength(1);
    expect(echoes[0]?.status.state).toBe("TASK_STATE_WORKING");
    expect(texts(echoes[0]?.status.message)).toBe("Forty-three.");
    expect(echoes[0]?.at).toBe(lastChunkAt(results) - 1);
    expect(all.filter((s) => texts(s.status.message).includes("Forty-three."))).toEqual(echoes);
    const last = all.at(-1)?.status;
    expect(last?.state).toBe("TASK_STATE_COMPLETED");
    expect(last?.message).toBeUndefined();
    // Sent, never stored: the task's history holds the answer once, and no echo.
    const read = await rpc<WireTask>("GetTask", { id: results[0]?.task?.id, historyLength: 50 });
    const history = (read.result?.history ?? []) as WireMessage[];
    expect(history.filter((m) => texts(m).includes("Forty-three."))).toHaveLength(1);
    expect(history.some((m) => m.extensions?.includes(ANSWER_ECHO_EXTENSION))).toBe(false);
  });

  it("v1.0: a limit's note is the completed status message; the echo ends with a blank line", async () => {
    const s = await scenario([
      { text: "So far.", stopReason: "max_tokens" },
      { text: "Further.", stopReason: "max_tokens", chunkSize: 3 },
    ]);
    const task = await sendTask({ message: userMessage(`cut ${s.marker}`) });
    expect(task.metadata?.stopReason).toBe("max_tokens");
    expect(texts(task.status.message)).toMatch(NOTE);
    expect(answerText(task)).toBe("So far.");
    const results = await streamedResults("SendStreamingMessage", {
      message: userMessage(`more ${s.marker}`, { contextId: task.contextId }),
    });
    const all = statuses(results);
    expect(all.filter((s) => isEcho(s.status)).map((s) => texts(s.status.message))).toEqual([
      "Further.\n\n",
    ]);
    expect(texts(all.at(-1)?.status.message)).toMatch(NOTE);
  });

  it("v0.3: message/send and message/stream, the echo marked as v0.3 spells it", async () => {
    const s = await scenario([{ text: "Blue." }, { text: "Green.", chunkSize: 2 }]);
    const sent = await sendV03<WireTask & { kind: string }>(v03Message(`colour ${s.marker}`));
    expect(sent.result?.status.state).toBe("completed");
    expect(sent.result?.status.message).toBeUndefined();
    const results = await streamedResults(
      "message/stream",
      { message: v03Message(`another ${s.marker}`, { contextId: sent.result?.contextId }) },
      true,
    );
    const all = statuses(results);
    const echoes = all.filter((s) => isEcho(s.status));
    expect(echoes).toHaveLength(1);
    const echo = echoes[0] ?? { at: -1, status: undefined };
    expect(results[echo.at]).toMatchObject({ kind: "status-update", final: false });
    expect(echo.status).toMatchObject({
      state: "working",
      message: { kind: "message", role: "agent" },
    });
    expect(texts(echo.status?.message)).toBe("Green.");
    expect(echo.at).toBe(lastChunkAt(results) - 1);
    expect(results.at(-1)).toMatchObject({ kind: "status-update", final: true });
    expect(all.at(-1)?.status.message).toBeUndefined();
  });
});
