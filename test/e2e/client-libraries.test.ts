/**
 * Third-party A2A client libraries against `npm run dev` show a completed task's answer exactly
 * once, blocking and streaming, over each protocol version the library speaks: the Vercel AI SDK
 * provider `a2a-ai-provider`, Google ADK's `RemoteA2AAgent`, Mastra's `A2AAgent` and the AG-UI
 * bridge `@ag-ui/a2a` (client-libraries.ts says what each shows). Each case checks the methods the
 * library called, so that "blocking" and "streaming" are what ran. A limit's note shows once, in
 * the library's own join, wherever the library shows status messages (docs/protocol.md, "Where
 * the answer is").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adk, agUiBridge, aiProvider, mastra, type Shown } from "./client-libraries.ts";
import { addScenario } from "./scenarios.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";

/** A fixed answer of 234 characters, streamed in chunks. */
const ANSWER =
  "The edge keeps each task in its own object, so a conversation survives restarts; the answer streams as chunks of one artifact, and a client that reads it shows it once, whatever library it is built on and whichever protocol it speaks.";

/** The note of a turn cut off at the agent's output limit (a limit that ends the task). */
const NOTE = /The answer was cut off at the agent's output limit \(\d+ tokens\)\./.source;
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A library in one mode: what it calls, and how it joins the answer and a note (null: it shows
 * no status message in this mode, so no note). */
interface Client {
  name: string;
  shown: Shown;
  methods: string[];
  withNote: ((answer: string, note: string) => string) | null;
}

const CLIENTS: Client[] = [
  {
    name: "a2a-ai-provider generateText (v0.3)",
    shown: aiProvider("generate"),
    methods: ["message/send"],
    withNote: (answer, note) => note + answer,
  },
  {
    name: "a2a-ai-provider streamText (v0.3)",
    shown: aiProvider("stream"),
    methods: ["message/stream"],
    withNote: null,
  },
  {
    name: "ADK RemoteA2AAgent streaming (v0.3)",
    shown: adk("stream"),
    methods: ["message/stream"],
    withNote: (answer, note) => answer + note,
  },
  {
    name: "ADK RemoteA2AAgent blocking (v0.3)",
    shown: adk("blocking"),
    methods: ["message/send"],
    withNote: (answer, note) => answer + note,
  },
  {
    name: "Mastra A2AAgent generate (v0.3)",
    shown: mastra("generate", "0.3"),
    methods: ["message/send"],
    withNote: (answer, note) => `${answer}\n${note}`,
  },
  {
    name: "Mastra A2AAgent generate (v1.0)",
    shown: mastra("generate", "1.0"),
    methods: ["SendMessage"],
    withNote: (answer, note) => `${answer}\n${note}`,
  },
  {
    name: "Mastra A2AAgent stream (v0.3)",
    shown: mastra("stream", "0.3"),
    methods: ["message/stream"],
    withNote: null,
  },
  {
    name: "Mastra A2AAgent stream (v1.0)",
    shown: mastra("stream", "1.0"),
    methods: ["SendStreamingMessage"],
    withNote: null,
  },
  {
    name: "@ag-ui/a2a streaming (v0.3)",
    shown: agUiBridge,
    methods: ["message/stream"],
    withNote: (answer, note) => `${answer}\n\n${note}`,
  },
];

let harness: SharedHarness;
const base = () => harness.server.url;

beforeAll(async () => {
  harness = await sharedScriptedHarness();
});

afterAll(async () => {
  await harness?.release();
});

describe("third-party A2A client libraries show the answer once", () => {
  for (const client of CLIENTS) {
    it(`${client.name}: the answer, once`, async () => {
      const { shown, methods } = await client.shown(
        base(),
        `Explain the edge. [[reply:${ANSWER}]] [[chunk:37]]`,
      );
      expect(methods).toEqual(client.methods);
      expect(shown).toBe(ANSWER);
    });
  }

  for (const client of CLIENTS) {
    const join = client.withNote;
    if (!join) continue;
    it(`${client.name}: a limit's note once, with the answer once`, async () => {
      const s = addScenario(harness.fake.store, [
        { text: ANSWER, stopReason: "max_tokens", chunkSize: 37 },
      ]);
      const { shown } = await client.shown(base(), `Explain the edge at length. ${s.marker}`);
      expect(shown).toMatch(new RegExp(`^${join(literally(ANSWER), NOTE)}$`));
    });
  }
});
