/**
 * Recorded turns of the scripted Messages API (src/model/scripted/recorded.ts): a turn naming a
 * recording answers with its SSE text byte for byte, on the attempts it names; in-process with a
 * source given here, and over HTTP from test/fake-model/recorded/ through the real SDK.
 */
import { env } from "cloudflare:workers";
import { Anthropic } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import {
  createScriptedMessagesApi,
  type Scenario,
  ScenarioStore,
} from "../../../../src/model/scripted/messages-api.ts";
import { sseEvents } from "../../../../src/model/scripted/recorded.ts";
import { SCRIPTED_MODEL } from "../../../helpers/scripted-client.ts";
import { streamOnce } from "../../../helpers/sdk-calls.ts";

const SSE = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
  'event: ping\ndata: {"type": "ping"}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":null,"explanation":"No."}},"usage":{"output_tokens":1}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join("");

/** A handler whose only recording is `one` (SSE above), with `scenario` registered. */
function handlerWith(scenario: Scenario) {
  const store = new ScenarioStore();
  store.addScenario(scenario);
  const handler = createScriptedMessagesApi({
    store,
    recordings: (name) => (name === "one" ? SSE : undefined),
  });
  const post = (stream: boolean) =>
    handler(
      new Request("http://scripted.local/v1/messages", {
        method: "POST",
        headers: { "x-api-key": "k", "content-type": "application/json" },
        body: JSON.stringify({
          model: SCRIPTED_MODEL,
          max_tokens: 10,
          stream,
          messages: [{ role: "user", content: `[[scenario:${scenario.id}]] hi` }],
        }),
      }),
    );
  return { post, store };
}

describe("recorded turns", () => {
  it("answer with the recording's bytes, one event per write", async () => {
    expect(sseEvents(SSE)).toHaveLength(4);
    const { post } = handlerWith({ id: "rec", turns: [{ recorded: "one" }] });
    const response = await post(true);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(await response.text()).toBe(SSE);
  });

  it("replay only on the attempts they name; the others play the turn", async () => {
    const { post } = handlerWith({
      id: "rec-once",
      turns: [{ recorded: "one", recordedAttempts: [1], text: "Played." }],
    });
    expect(await (await post(true)).text()).toBe(SSE);
    const second = await (await post(true)).text();
    expect(second).toContain('"text_delta","text":"Played."');
  });

  it("are a 400 when the recording is unknown or the request does not stream", async () => {
    const unknown = handlerWith({ id: "rec-missing", turns: [{ recorded: "two" }] });
    const missing = await unknown.post(true);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      error: { type: "invalid_request_error", message: "no recorded stream 'two'" },
    });
    const whole = await handlerWith({ id: "rec-whole", turns: [{ recorded: "one" }] }).post(false);
    expect(whole.status).toBe(400);
    // Without a source (the Worker's keyless mode) no recording exists.
    const store = new ScenarioStore();
    store.addScenario({ id: "rec-none", turns: [{ recorded: "one" }] });
    const withStore = createScriptedMessagesApi({ store });
    const refused = await withStore(
      new Request("http://scripted.local/v1/messages", {
        method: "POST",
        headers: { "x-api-key": "k" },
        body: JSON.stringify({
          model: SCRIPTED_MODEL,
          max_tokens: 10,
          stream: true,
          messages: [{ role: "user", content: "[[scenario:rec-none]] hi" }],
        }),
      }),
    );
    expect(refused.status).toBe(400);
  });

  it("come from test/fake-model/recorded/ over HTTP: refusal.sse reaches the SDK as a refusal", async () => {
    const id = `rec-http-${crypto.randomUUID()}`;
    const registered = await fetch(`${env.FAKE_MODEL_URL}/_scripted/scenarios`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id, turns: [{ recorded: "refusal" }] }),
    });
    expect(registered.status).toBe(201);
    const client = new Anthropic({ apiKey: "x", baseURL: env.FAKE_MODEL_URL, maxRetries: 0 });
    const { texts, events, message } = await streamOnce(client, [
      { role: "user", content: `[[scenario:${id}]] hi` },
    ]);
    expect(events).toEqual([
      "message_start",
      "content_block_start",
      "text_delta",
      "text_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(texts.join("")).toBe("Here is how the payload");
    expect(message.stop_reason).toBe("refusal");
    expect(message.stop_details).toEqual({
      type: "refusal",
      category: "cyber",
      explanation: "This request was declined because it could enable cyber harm.",
    });
  });
});
