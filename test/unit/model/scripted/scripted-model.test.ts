/**
 * The scripted Messages API driven by the real @anthropic-ai/sdk inside workerd: scenario
 * turns streamed in-process (text, tool_use, thinking, scripted errors, mid-stream errors,
 * stalls, cancellation, turn selection, complete Messages), and over HTTP against the Node
 * server from test/global-setup.ts to prove the wrapper streams incrementally.
 * Validation, directives and the control API: scripted-model-api.test.ts.
 */

import { env } from "cloudflare:workers";
import { Anthropic } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import type { LoggedRequest } from "../../../../src/model/scripted/messages-api.ts";
import { SCRIPTED_MODEL, scriptedClient, userMessage } from "../../../helpers/scripted-client.ts";
import { apiErrorOf, streamOnce } from "../../../helpers/sdk-calls.ts";
import { until } from "../../../helpers/until.ts";

describe("scripted Messages API in-process: scenarios", () => {
  it("streams plain text in several deltas with usage", async () => {
    const text = "Hello from the scripted model, streamed in pieces.";
    const { client } = scriptedClient({ id: "plain", turns: [{ text, chunkSize: 8 }] });
    const { texts, events, message } = await streamOnce(client, [
      userMessage("[[scenario:plain]] hi"),
    ]);
    expect(texts.length).toBe(Math.ceil(text.length / 8));
    expect(texts.join("")).toBe(text);
    expect(events[0]).toBe("message_start");
    expect(events.at(-1)).toBe("message_stop");
    expect(message.id).toMatch(/^msg_scripted_\d+$/);
    expect(message.model).toBe(SCRIPTED_MODEL);
    expect(message.content).toEqual([{ type: "text", text, citations: null }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBe(Math.ceil(text.length / 4));
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it("streams tool_use input as JSON pieces, then answers the tool result", async () => {
    const input = { city: "Paris", days: 3, nested: { list: [1, 2, "three"] } };
    const { store, client } = scriptedClient({
      id: "tools",
      turns: [
        { text: "Checking.", toolUses: [{ name: "get_weather", input }] },
        { text: "Sunny." },
      ],
    });
    const first = await streamOnce(client, [userMessage("[[scenario:tools]] weather?")]);
    expect(first.events.filter((e) => e === "input_json_delta").length).toBeGreaterThanOrEqual(2);
    expect(first.message.stop_reason).toBe("tool_use");
    const toolUse = first.message.content[1];
    if (toolUse?.type !== "tool_use") throw new Error("expected a tool_use block");
    expect(toolUse.id).toMatch(/^toolu_/);
    expect(toolUse.name).toBe("get_weather");
    expect(toolUse.input).toEqual(input);

    const second = await streamOnce(client, [
      userMessage("[[scenario:tools]] weather?"),
      { role: "assistant", content: first.message.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "22C" }] },
    ]);
    expect(second.texts.join("")).toBe("Sunny.");
    expect(store.requests("tools").map((r) => r.turnIndex)).toEqual([0, 1]);
  });

  it("streams a thinking block with a signature before the text", async () => {
    const thinking = "The user greets me; a short greeting back is enough.";
    const { client } = scriptedClient({
      id: "think",
      turns: [{ thinking, text: "Hi!", chunkSize: 10 }],
    });
    const { events, message } = await streamOnce(client, [userMessage("[[scenario:think]] hello")]);
    expect(events.filter((e) => e === "thinking_delta").length).toBe(
      Math.ceil(thinking.length / 10),
    );
    expect(events.indexOf("signature_delta")).toBeLessThan(events.indexOf("text_delta"));
    const [block, text] = message.content;
    if (block?.type !== "thinking") throw new Error("expected a thinking block");
    expect(block.thinking).toBe(thinking);
    expect(block.signature.length).toBeGreaterThan(10);
    expect(text).toMatchObject({ type: "text", text: "Hi!" });
  });

  it("fails attempt 1 with a scripted 529 (retry-after), then succeeds", async () => {
    const { store, client } = scriptedClient({
      id: "errors",
      turns: [
        { text: "made it", errors: [{ status: 529, type: "overloaded_error", retryAfter: 2 }] },
      ],
    });
    const messages = [userMessage("[[scenario:errors]] go")];
    const error = await apiErrorOf(streamOnce(client, messages));
    expect(error.status).toBe(529);
    expect(error.type).toBe("overloaded_error");
    expect(error.headers?.get("retry-after")).toBe("2");
    const { texts } = await streamOnce(client, messages);
    expect(texts.join("")).toBe("made it");
    expect(store.requests("errors").map((r) => [r.attempt, r.status])).toEqual([
      [1, 529],
      [2, 200],
    ]);
  });

  it("sends event: error mid-stream on attempt 1 only", async () => {
    const text = "abcdefghijklmnopqrstuvwxyz";
    const { client } = scriptedClient({
      id: "midstream",
      turns: [
        {
          text,
          chunkSize: 4,
          midStreamError: { afterChunks: 2, type: "api_error", message: "boom" },
        },
      ],
    });
    const stream = client.messages.stream({
      model: SCRIPTED_MODEL,
      max_tokens: 64,
      messages: [userMessage("[[scenario:midstream]] x")],
    });
    const seen: string[] = [];
    stream.on("text", (delta) => seen.push(delta));
    const error = await apiErrorOf(stream.finalMessage());
    expect(error.type).toBe("api_error");
    expect(error.message).toContain("boom");
    expect(seen).toEqual(["abcd", "efgh"]);
    const retry = await streamOnce(client, [userMessage("[[scenario:midstream]] x")]);
    expect(retry.texts.join("")).toBe(text);
  });

  it("picks the turn from the assistant count, so a retried request replays its turn", async () => {
    const { store, client } = scriptedClient({
      id: "det",
      turns: [{ text: "turn zero" }, { text: "turn one" }],
    });
    const history: MessageParam[] = [
      { role: "user", content: [{ type: "text", text: "start [[scenario:det]]" }] },
      { role: "assistant", content: "turn zero" },
      userMessage("next"),
    ];
    const replay = () =>
      client.messages.create({ model: SCRIPTED_MODEL, max_tokens: 9, messages: history });
    const [a, b] = [await replay(), await replay()];
    expect([a.content[0], b.content[0]]).toMatchObject([
      { text: "turn one" },
      { text: "turn one" },
    ]);
    const past = await client.messages.create({
      model: SCRIPTED_MODEL,
      max_tokens: 9,
      system: "[[scenario:det]]",
      messages: [userMessage("a"), { role: "assistant", content: "b" } as MessageParam, ...history],
    });
    expect(past.content[0]).toMatchObject({ text: "(scripted scenario det has no more turns)" });
    const log = store.requests("det").map((r) => [r.turnIndex, r.attempt]);
    expect(log).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
  });

  it("lets directives in the newest user text win over a marker quoted in the system prompt", async () => {
    const { client } = scriptedClient({ id: "quoted", turns: [{ text: "from the scenario" }] });
    const system = 'Handoff: the last task was asked "go [[scenario:quoted]]"';
    const answer = async (text: string) =>
      (
        await client.messages.create({
          model: SCRIPTED_MODEL,
          max_tokens: 9,
          system,
          messages: [userMessage(text)],
        })
      ).content[0];
    expect(await answer("[[reply:from the directive]]")).toMatchObject({
      text: "from the directive",
    });
    expect(await answer("no directives here")).toMatchObject({ text: "from the scenario" });
  });

  it("returns a complete Message without stream, echoing usage overrides", async () => {
    const { client } = scriptedClient({
      id: "whole",
      turns: [
        {
          text: "Here you go.",
          toolUses: [{ id: "toolu_fixed", name: "save", input: { path: "a.txt" } }],
          stopReason: "max_tokens",
          usage: { input_tokens: 100, cache_read_input_tokens: 40, cache_creation_input_tokens: 7 },
        },
      ],
    });
    const message = await client.messages.create({
      model: SCRIPTED_MODEL,
      max_tokens: 50,
      messages: [userMessage("[[scenario:whole]]")],
    });
    expect(message.content).toMatchObject([
      { type: "text", text: "Here you go." },
      { type: "tool_use", id: "toolu_fixed", name: "save", input: { path: "a.txt" } },
    ]);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage).toMatchObject({
      input_tokens: 100,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 7,
      output_tokens: Math.ceil(("Here you go.".length + '{"path":"a.txt"}'.length) / 4),
    });
  });

  it("stalls after N deltas only on the listed attempts", async () => {
    // Stalled, the gap would be ten minutes (past the test's timeout): attempt 1 must not be.
    const turn = { text: "0123456789", chunkSize: 5, stallAfterChunks: 1, stallMs: 600_000 };
    const { client } = scriptedClient(
      { id: "stall", turns: [{ ...turn, stallAttempts: [2] }] },
      { id: "stall-1", turns: [{ ...turn, stallMs: 300, stallAttempts: [1] }] },
    );
    const first = await streamOnce(client, [userMessage("[[scenario:stall]]")]);
    expect(first.texts).toEqual(["01234", "56789"]);
    const stalled = await streamOnce(client, [userMessage("[[scenario:stall-1]]")]);
    expect(stalled.texts).toEqual(["01234", "56789"]);
    expect((stalled.at[1] ?? 0) - (stalled.at[0] ?? 0)).toBeGreaterThanOrEqual(250);
  });

  it("paces deltas (delayMs) only on the attempts delayAttempts lists", async () => {
    // Paced, each gap would be a minute (past the test's timeout): attempt 1 must not be.
    const turn = { text: "0123456789", chunkSize: 5, delayMs: 60_000, delayAttempts: [2] };
    const { client } = scriptedClient(
      { id: "paced", turns: [turn] },
      { id: "paced-2", turns: [{ ...turn, delayMs: 300 }] },
    );
    const first = await streamOnce(client, [userMessage("[[scenario:paced]]")]);
    expect(first.texts).toEqual(["01234", "56789"]);
    await streamOnce(client, [userMessage("[[scenario:paced-2]]")]);
    const second = await streamOnce(client, [userMessage("[[scenario:paced-2]]")]);
    expect((second.at[1] ?? 0) - (second.at[0] ?? 0)).toBeGreaterThanOrEqual(250);
  });

  it("stops producing when the client aborts the stream", async () => {
    const { store, client } = scriptedClient({
      id: "abort",
      turns: [{ text: "x".repeat(200), chunkSize: 2, delayMs: 20 }],
    });
    const stream = client.messages.stream({
      model: SCRIPTED_MODEL,
      max_tokens: 9,
      messages: [userMessage("[[scenario:abort]]")],
    });
    let deltas = 0;
    await new Promise<void>((resolve) => {
      stream.on("text", () => {
        deltas += 1;
        if (deltas === 2) resolve();
      });
    });
    expect(store.activeStreams).toBe(1);
    stream.abort();
    await stream.done().catch(() => {});
    expect(
      await until(
        async () => store.activeStreams,
        (open) => open === 0,
      ),
    ).toBe(0);
    expect(deltas).toBeLessThan(10);
  });
});

describe("scripted Messages API over HTTP (Node server from global setup)", () => {
  it("streams deltas incrementally to the SDK's default fetch", async () => {
    const id = `node-stream-${crypto.randomUUID()}`;
    const registered = await fetch(`${env.FAKE_MODEL_URL}/_scripted/scenarios`, {
      method: "POST",
      body: JSON.stringify({ id, turns: [{ text: "a".repeat(40), chunkSize: 4, delayMs: 30 }] }),
    });
    expect(registered.status).toBe(201);
    const client = new Anthropic({ apiKey: "x", baseURL: env.FAKE_MODEL_URL, maxRetries: 0 });
    const { texts, at } = await streamOnce(client, [userMessage(`[[scenario:${id}]] go`)]);
    expect(texts).toHaveLength(10);
    const first = at[0] ?? 0;
    const last = at.at(-1) ?? 0;
    expect(last - first).toBeGreaterThanOrEqual(200);
    const gaps = at.slice(1).map((t, i) => t - (at[i] ?? t));
    expect(gaps.filter((g) => g >= 15).length).toBeGreaterThanOrEqual(6);
    const log = (await (
      await fetch(`${env.FAKE_MODEL_URL}/_scripted/requests?scenario=${id}`)
    ).json()) as {
      requests: LoggedRequest[];
    };
    expect(log.requests.map((r) => [r.attempt, r.status, r.headers.authorization])).toEqual([
      [1, 200, "<set>"],
    ]);
  });
});
