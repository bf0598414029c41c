/**
 * The harness under `wrangler dev`, driven by the official @a2a-js/sdk client: discovery, send
 * (blocking and immediate), streaming, GetTask with historyLength, cancel mid-stream, subscribe
 * mid-task and reconnect with Last-Event-ID.
 */
import type { StreamResponse } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { sdkClientFactory } from "../../src/remote/sdk-client.ts";
import { servedAgents } from "./agent-set.ts";
import { answerOf, applyStream, asTask, stateOf, textRequest, waitForState } from "./client.ts";
import { type DevServer, type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";
import { addScenario } from "./scenarios.ts";

let harness: ScriptedHarness;
let fake: ScriptedHarness["fake"];
let server: DevServer;
let writer: Client;

const scenario = (turns: Turn[]) => addScenario(fake.store, turns);

beforeAll(async () => {
  harness = await startScriptedHarness({
    MODEL_IDLE_TIMEOUT_MS: "3000",
    MODEL_RETRY_BASE_MS: "20",
    SSE_KEEPALIVE_MS: "1000",
    // Every test here runs through the storage meter's wrappers (test/e2e/ledger.test.ts
    // reads what they count).
    STORAGE_METER: "true",
  });
  ({ fake, server } = harness);
  writer = await new ClientFactory().createFromUrl(`${server.url}/agents/writer/`);
});

afterAll(async () => {
  await harness?.stop();
});

describe("official @a2a-js/sdk client against wrangler dev", () => {
  it("discovers the default agent at the root and every agent under /agents/<name>/", async () => {
    const root = await new ClientFactory().createFromUrl(server.url);
    expect((await root.getAgentCard()).name).toBe("assistant");
    for (const name of servedAgents()) {
      const client = await new ClientFactory().createFromUrl(`${server.url}/agents/${name}/`);
      const card = await client.getAgentCard();
      expect(card.name).toBe(name);
      expect(card.supportedInterfaces[0]?.url).toBe(`${server.url}/agents/${name}/`);
      expect(card.capabilities?.streaming).toBe(true);
    }
  });

  it("sends a blocking message and gets the completed task", async () => {
    const s = scenario([{ text: "A finished answer.", chunkSize: 4 }]);
    const task = asTask(await writer.sendMessage(textRequest(`blocking ${s.marker}`)));
    expect(stateOf(task)).toBe("TASK_STATE_COMPLETED");
    expect(answerOf(task)).toBe("A finished answer.");
    // An anonymous caller's task belongs to its conversation (anon- and a hash of the contextId).
    expect(task.metadata?.owner).toMatch(/^anon-[0-9a-f]{32}$/);
  });

  it("sends with returnImmediately, then polls GetTask to completion", async () => {
    const s = scenario([{ text: "later", delayMs: 100, chunkSize: 1 }]);
    const task = asTask(
      await writer.sendMessage(textRequest(`immediate ${s.marker}`, { returnImmediately: true })),
    );
    expect(stateOf(task)).toBe("TASK_STATE_WORKING");
    const done = await waitForState(writer, task.id, "TASK_STATE_COMPLETED");
    expect(answerOf(done)).toBe("later");
  });

  it("streams events while the model is still generating", async () => {
    const s = scenario([
      { text: "one two three four five six seven eight", chunkSize: 5, delayMs: 150 },
    ]);
    const events: Array<{ at: number; event: StreamResponse }> = [];
    for await (const event of writer.sendMessageStream(textRequest(`stream ${s.marker}`)))
      events.push({ at: Date.now(), event });
    expect(events[0]?.event.payload?.$case).toBe("task");
    const firstChunk = events.find((e) => e.event.payload?.$case === "artifactUpdate");
    const last = events.at(-1);
    expect(last?.event.payload?.$case).toBe("statusUpdate");
    expect((last?.at ?? 0) - (firstChunk?.at ?? 0)).toBeGreaterThan(700);
    expect(applyStream(events.map((e) => e.event))).toBe("one two three four five six seven eight");
  });

  it("GetTask honours historyLength", async () => {
    const s = scenario([{ text: "history" }]);
    const task = asTask(await writer.sendMessage(textRequest(`h ${s.marker}`)));
    expect((await writer.getTask({ tenant: "", id: task.id })).history).toHaveLength(2);
    expect(
      (await writer.getTask({ tenant: "", id: task.id, historyLength: 1 })).history,
    ).toHaveLength(1);
    expect(
      (await writer.getTask({ tenant: "", id: task.id, historyLength: 0 })).history,
    ).toHaveLength(0);
  });

  it("cancels mid-stream: the stream ends canceled and no further model call starts", async () => {
    const s = scenario([
      { text: "c".repeat(60), chunkSize: 2, delayMs: 50, toolUses: [{ name: "noop", input: {} }] },
      { text: "must never run" },
    ]);
    const events: StreamResponse[] = [];
    let canceledState = "";
    for await (const event of writer.sendMessageStream(textRequest(`cancel ${s.marker}`))) {
      events.push(event);
      if (event.payload?.$case === "artifactUpdate" && !canceledState) {
        const id = event.payload.value.taskId;
        canceledState = stateOf(await writer.cancelTask({ tenant: "", id, metadata: undefined }));
      }
    }
    expect(canceledState).toBe("TASK_STATE_CANCELED");
    const last = events.at(-1);
    expect(last?.payload?.$case === "statusUpdate" && last.payload.value.status?.state).toBe(5);
    await new Promise((r) => setTimeout(r, 500));
    expect(fake.store.requests(s.id)).toHaveLength(1);
  });

  it("subscribes mid-task and reconnects with Last-Event-ID without losing or repeating events", async () => {
    const text = "subscribe and resume without gaps or repeats";
    const s = scenario([{ text, chunkSize: 3, delayMs: 60 }]);
    const task = asTask(
      await writer.sendMessage(textRequest(`sub ${s.marker}`, { returnImmediately: true })),
    );

    // First subscriber: the official client; it opens with the current Task.
    const first = writer.resubscribeTask({ tenant: "", id: task.id });
    const opening = await first.next();
    expect(opening.value?.payload?.$case).toBe("task");
    await first.return(undefined);

    // A raw subscriber that records SSE ids, then drops the connection after a few chunks.
    const controller = new AbortController();
    const response = await fetch(`${server.url}/agents/writer/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SubscribeToTask",
        params: { id: task.id },
      }),
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let lastId = "";
    let snapshotText = "";
    const seenChunks: string[] = [];
    while (seenChunks.length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split("\n").find((l) => l.startsWith("data: "));
        if (!data) continue;
        lastId =
          frame
            .split("\n")
            .find((l) => l.startsWith("id: "))
            ?.slice(4) ?? lastId;
        const result = JSON.parse(data.slice(6)).result;
        if (result.task)
          snapshotText = (result.task.artifacts ?? [])
            .flatMap((a: { parts: Array<{ text: string }> }) => a.parts.map((p) => p.text))
            .join("");
        if (result.artifactUpdate) seenChunks.push(result.artifactUpdate.artifact.parts[0].text);
      }
    }
    controller.abort();

    // Reconnect through the official client, passing Last-Event-ID as a service parameter (header).
    const rest: StreamResponse[] = [];
    for await (const event of writer.resubscribeTask(
      { tenant: "", id: task.id },
      { serviceParameters: { "Last-Event-ID": lastId } },
    )) {
      rest.push(event);
    }
    expect(rest[0]?.payload?.$case).not.toBe("task");
    const rebuilt = applyStream(rest, snapshotText + seenChunks.join(""));
    expect(rebuilt).toBe(text);
    expect(answerOf(await writer.getTask({ tenant: "", id: task.id }))).toBe(text);
  });
});

/** A client factory speaking only the given binding, on the v1.0 protocol or on v0.3 (legacy transports, v0.3 card). */
function factory(binding: "JSONRPC" | "HTTP+JSON", version: "1.0" | "0.3"): ClientFactory {
  return sdkClientFactory({
    legacyCompat: version === "0.3",
    preferredTransports: [binding],
    // A v0.3 client sends no A2A-Version header, so it gets the v0.3 card.
    ...(version === "0.3" ? { cardFetch: (url: RequestInfo | URL) => fetch(url) } : {}),
  });
}

describe("both protocol versions, both bindings, through the official client", () => {
  for (const version of ["1.0", "0.3"] as const) {
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      it(`discovers and calls every agent over ${binding} ${version}`, async () => {
        const s = scenario(
          Array.from({ length: 3 }, () => ({
            text: `answer over ${binding} ${version}`,
            chunkSize: 6,
          })),
        );
        for (const name of servedAgents()) {
          const client = await factory(binding, version).createFromUrl(
            `${server.url}/agents/${name}/`,
          );
          expect(client.protocolVersion).toBe(version);
          const task = asTask(
            await client.sendMessage(
              textRequest(`hi ${name} ${s.marker}`, { returnImmediately: false }),
            ),
          );
          expect(stateOf(task)).toBe("TASK_STATE_COMPLETED");
          expect(answerOf(task)).toBe(`answer over ${binding} ${version}`);
          const again = await client.getTask({ tenant: "", id: task.id, historyLength: 1 });
          expect(again.history).toHaveLength(1);
        }
        const client = await factory(binding, version).createFromUrl(
          `${server.url}/agents/writer/`,
        );
        const events: StreamResponse[] = [];
        for await (const event of client.sendMessageStream(textRequest(`stream ${s.marker}`)))
          events.push(event);
        expect(events[0]?.payload?.$case).toBe("task");
        if (binding === "HTTP+JSON" && version === "0.3") {
          // The SDK's v0.3 REST client drops `append` when it decodes artifact updates (its
          // FromProto.taskArtifactUpdateEvent), so the chunks can only be checked as a sequence.
          const chunks = events.flatMap((e) =>
            e.payload?.$case === "artifactUpdate"
              ? (e.payload.value.artifact?.parts ?? []).map((p) =>
                  p.content?.$case === "text" ? p.content.value : "",
                )
              : [],
          );
          expect(chunks.join("")).toBe(`answer over ${binding} ${version}`);
        } else {
          expect(applyStream(events)).toBe(`answer over ${binding} ${version}`);
        }
      });
    }
  }

  it("a task started by a v0.3 client is read by a v1.0 client, in the same conversation", async () => {
    const s = scenario(Array.from({ length: 3 }, () => ({ text: "shared" })));
    const old = await factory("JSONRPC", "0.3").createFromUrl(`${server.url}/agents/writer/`);
    const first = asTask(
      await old.sendMessage(textRequest(`first ${s.marker}`, { returnImmediately: false })),
    );
    const current = await factory("HTTP+JSON", "1.0").createFromUrl(`${server.url}/agents/writer/`);
    expect(stateOf(await current.getTask({ tenant: "", id: first.id }))).toBe(
      "TASK_STATE_COMPLETED",
    );
    const second = asTask(
      await current.sendMessage(
        textRequest(`second ${s.marker}`, {}, { contextId: first.contextId }),
      ),
    );
    expect(second.contextId).toBe(first.contextId);
    const requests = fake.store.requests(s.id);
    expect((requests.at(-1)?.body as { messages: unknown[] } | undefined)?.messages).toHaveLength(
      3,
    );
  });
});
