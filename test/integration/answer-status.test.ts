/**
 * The answer in the completed status: a client that reads only messages (the AG-UI bridge
 * `@ag-ui/a2a` shows `status.message` and Messages) sees the answer text, over v1.0 and v0.3,
 * blocking and streaming; the answer artifact is as it was.
 */
import { describe, expect, it } from "vitest";
import {
  answerText,
  sendTask,
  sendV03,
  userMessage,
  v03Message,
  type WireTask,
} from "../helpers/a2a.ts";
import { scenario } from "../helpers/fake-model.ts";
import { streamedResults } from "../helpers/sse.ts";

const texts = (message: { parts: Array<{ text?: string }> } | undefined) =>
  (message?.parts ?? []).map((p) => p.text ?? "").join("");

describe("the completed status carries the answer", () => {
  it("v1.0: SendMessage and the stream's final status update", async () => {
    const s = await scenario([{ text: "Forty-two." }, { text: "Forty-three.", chunkSize: 3 }]);
    const task = await sendTask({ message: userMessage(`q ${s.marker}`) });
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(texts(task.status.message)).toBe("Forty-two.");
    expect(answerText(task)).toBe("Forty-two.");
    const results = await streamedResults("SendStreamingMessage", {
      message: userMessage(`again ${s.marker}`, { contextId: task.contextId }),
    });
    const last = results.at(-1) as {
      statusUpdate?: { status: { state: string; message?: { role: string; parts: [] } } };
    };
    expect(last.statusUpdate?.status.state).toBe("TASK_STATE_COMPLETED");
    expect(last.statusUpdate?.status.message?.role).toBe("ROLE_AGENT");
    expect(texts(last.statusUpdate?.status.message)).toBe("Forty-three.");
  });

  it("v0.3: message/send and message/stream's final status-update", async () => {
    const s = await scenario([{ text: "Blue." }, { text: "Green.", chunkSize: 2 }]);
    const sent = await sendV03<WireTask & { kind: string }>(v03Message(`colour ${s.marker}`));
    expect(sent.result?.status.state).toBe("completed");
    expect(texts(sent.result?.status.message)).toBe("Blue.");
    const results = await streamedResults(
      "message/stream",
      { message: v03Message(`another ${s.marker}`, { contextId: sent.result?.contextId }) },
      true,
    );
    const last = results.at(-1) as unknown as {
      kind: string;
      final: boolean;
      status: { state: string; message?: { kind: string; role: string; parts: [] } };
    };
    expect(last).toMatchObject({ kind: "status-update", final: true });
    expect(last.status.message).toMatchObject({ kind: "message", role: "agent" });
    expect(texts(last.status.message)).toBe("Green.");
  });
});
