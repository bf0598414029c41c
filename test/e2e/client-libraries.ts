/**
 * What third-party A2A client libraries show a person: each function sends one text message to an
 * agent through one library, the way its documentation says to use it, and returns the exact text
 * the library puts in front of the person (nothing trimmed or de-duplicated here), with the
 * JSON-RPC methods it called. Node only.
 *
 * - a2a-ai-provider (the Vercel AI SDK provider, v0.3): `generateText`'s `text`; `streamText`'s
 *   text deltas joined;
 * - Google ADK (`RemoteA2AAgent` as the root agent of an `InMemoryRunner`, no model of its own;
 *   v0.3): the text of the events that are final responses (`isFinalResponse`: what the session
 *   keeps), streaming when the card says `streaming: true`, one blocking call when it says false;
 * - Mastra (`A2AAgent`, v0.3 and v1.0): `generate`'s `text`; `stream`'s text deltas joined;
 * - `@ag-ui/a2a` (the AG-UI to A2A bridge, over an `@a2a-js/sdk` 0.2 client, v0.3): the assistant
 *   messages the run added.
 *
 * None of them needs a model or reaches beyond 127.0.0.1 here: Mastra's usage telemetry (PostHog,
 * sent only by a `Mastra` server) is switched off before it loads (`MASTRA_TELEMETRY_DISABLED`),
 * ADK sets up no telemetry unless asked, and the AI SDK's warnings are not printed.
 */
import type { BaseEvent } from "@ag-ui/client";

process.env.MASTRA_TELEMETRY_DISABLED = "true";
Object.assign(globalThis, { AI_SDK_LOG_WARNINGS: false });

/** Which wire protocol a library speaks to the agent. */
export type Protocol = "0.3" | "1.0";

/** What a library showed, and the JSON-RPC methods it called to get it. */
export interface Showing {
  shown: string;
  methods: string[];
}

/** A library's way of showing the answer of the agent at `base` to `text`. */
export type Shown = (base: string, text: string) => Promise<Showing>;

const trimmed = (base: string) => base.replace(/\/+$/, "");

/** The URL of the card of the agent at `base`. */
const cardUrl = (base: string) => `${trimmed(base)}/.well-known/agent-card.json`;

/**
 * Runs `work` with the global fetch recording the JSON-RPC methods posted through it (every
 * library here fetches through the global at call time, or takes it when it is made in `work`).
 */
async function recording(work: () => Promise<string>): Promise<Showing> {
  const methods: string[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    if (typeof init?.body === "string") {
      const method = (JSON.parse(init.body) as { method?: unknown }).method;
      if (typeof method === "string") methods.push(method);
    }
    return original(input, init);
  };
  try {
    return { shown: await work(), methods };
  } finally {
    globalThis.fetch = original;
  }
}

/** Runs `work` with console.log silenced (a library's own chatter), restoring it after. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const log = console.log;
  console.log = () => {};
  try {
    return await work();
  } finally {
    console.log = log;
  }
}

/**
 * a2a-ai-provider's `generateText` or `streamText` (its model id is the card's URL). The provider
 * prints every event with console.log; that output is its own and is dropped here.
 */
export function aiProvider(mode: "generate" | "stream"): Shown {
  return async (base, text) => {
    const [{ a2a }, { generateText, streamText }] = await Promise.all([
      import("a2a-ai-provider"),
      import("ai"),
    ]);
    const model = a2a(cardUrl(base));
    return recording(() =>
      quietly(async () => {
        if (mode === "generate") return (await generateText({ model, prompt: text })).text;
        let shown = "";
        for await (const delta of streamText({ model, prompt: text }).textStream) shown += delta;
        return shown;
      }),
    );
  };
}

/**
 * Google ADK's `RemoteA2AAgent` run by an `InMemoryRunner`: the text parts (thoughts left out) of
 * the agent's final responses. `blocking` hands the agent its card with `capabilities.streaming`
 * false, which makes it send one `message/send`.
 */
export function adk(mode: "stream" | "blocking"): Shown {
  return async (base, text) => {
    const { InMemoryRunner, isFinalResponse } = await import("@google/adk");
    const { RemoteA2AAgent } = await import("@google/adk/a2a");
    const agentCard =
      mode === "stream"
        ? `${trimmed(base)}/`
        : await fetch(cardUrl(base))
            .then((r) => r.json())
            .then((card) => ({
              ...card,
              capabilities: { ...card.capabilities, streaming: false },
            }));
    const agent = new RemoteA2AAgent({ name: "remote_agent", agentCard });
    const runner = new InMemoryRunner({ agent, appName: "e2e" });
    const session = await runner.sessionService.createSession({ appName: "e2e", userId: "user" });
    return recording(async () => {
      let shown = "";
      for await (const event of runner.runAsync({
        userId: "user",
        sessionId: session.id,
        newMessage: { role: "user", parts: [{ text }] },
      })) {
        if (event.errorMessage) throw new Error(`ADK: ${event.errorMessage}`);
        if (event.author !== agent.name || !isFinalResponse(event)) continue;
        for (const part of event.content?.parts ?? [])
          if (part.text && !part.thought) shown += part.text;
      }
      return shown;
    });
  };
}

/** Mastra's `A2AAgent` speaking `protocol`: `generate`'s `text`, or `stream`'s text deltas. */
export function mastra(mode: "generate" | "stream", protocol: Protocol): Shown {
  return async (base, text) => {
    const { A2AAgent } = await import("@mastra/core/a2a");
    return recording(async () => {
      const agent = new A2AAgent({ url: trimmed(base), protocolVersion: protocol });
      if (mode === "generate") return (await agent.generate(text)).text;
      const result = await agent.stream(text);
      let shown = "";
      for await (const chunk of result.fullStream as AsyncIterable<{
        type: string;
        payload?: { text?: string };
      }>)
        if (chunk.type === "text-delta") shown += chunk.payload?.text ?? "";
      return shown;
    });
  };
}

/**
 * `@ag-ui/a2a`'s `A2AAgent` over an `@a2a-js/sdk` 0.2 `A2AClient` (the line its dependency pins):
 * the content of the assistant messages the run added. It streams (`message/stream`); it sends a
 * blocking `message/send` only when the stream fails.
 */
export const agUiBridge: Shown = async (base, text) => {
  const [{ A2AAgent }, { A2AClient }] = await Promise.all([
    import("@ag-ui/a2a"),
    import("a2a-sdk-v02/client"),
  ]);
  return recording(async () => {
    const a2aClient = new A2AClient(`${trimmed(base)}/`);
    // The bridge types its client as the SDK line it was built on, which 0.2.5 is.
    const agent = new A2AAgent({ a2aClient: a2aClient as never });
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
    const errors: BaseEvent[] = [];
    const { newMessages } = await agent.runAgent(
      {},
      {
        onEvent: ({ event }) => {
          if (event.type === "RUN_ERROR") errors.push(event);
        },
      },
    );
    if (errors.length > 0) throw new Error(`@ag-ui/a2a: ${JSON.stringify(errors)}`);
    return newMessages
      .filter((m) => m.role === "assistant")
      .map((m) => (typeof m.content === "string" ? m.content : ""))
      .join("");
  });
};
