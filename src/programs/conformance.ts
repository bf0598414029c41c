/**
 * The conformance agent's program: what the official A2A conformance kit (TCK) asks of an agent
 * under test in its scenario files (`scenarios/*.feature` of a2aproject/a2a-tck), keyed by the
 * prefix of the `messageId` the kit sends. Each scenario is one or more steps over the engine's
 * generic abilities: artifacts of every part kind (text, file bytes, file URL, data, chunks),
 * a Message instead of a Task, input-required and its resumption, rejection, a long-running task.
 * Only this module (and agents/conformance/IDENTITY.md) knows about the kit. Pure: no I/O.
 */
import type { Artifact, Message, Part } from "../protocol/wire.ts";
import type { AgentProgram, ProgramEffect, ProgramStep } from "./types.ts";

const text = (value: string): Part[] => [{ text: value }];

/** `tck` as base64: the bytes of the kit's file artifacts. */
const FILE_BYTES = "dGNr";
const FILE = { filename: "output.txt", mediaType: "text/plain" };

const artifact = (artifactId: string, parts: Part[]): ProgramEffect => ({
  kind: "artifact",
  artifact: { artifactId, parts } satisfies Artifact,
  lastChunk: true,
});

/** Publishes `effects`, then completes (with a final message when `parts` are given). */
const complete = (effects: ProgramEffect[] = [], parts?: Part[]): ProgramStep[] => [
  { effects, end: parts ? { kind: "complete", parts } : { kind: "complete" } },
];

/** How long the kit's long-running scenario keeps working: twice its 2 s streaming timeout. */
const LONG_RUNNING_MS = 4_000;

interface Scenario {
  prefix: string;
  reply?: Part[];
  steps: ProgramStep[];
}

/** The scenarios, by messageId prefix (the longest matching prefix wins). */
const SCENARIOS: readonly Scenario[] = [
  { prefix: "tck-complete-task", steps: complete([], text("Hello from TCK")) },
  {
    prefix: "tck-artifact-text",
    steps: complete([artifact("text", text("Generated text content"))]),
  },
  {
    prefix: "tck-artifact-file",
    steps: complete([artifact("file", [{ raw: FILE_BYTES, ...FILE }])]),
  },
  {
    prefix: "tck-artifact-file-url",
    steps: complete([artifact("file-url", [{ url: "https://example.com/output.txt", ...FILE }])]),
  },
  {
    prefix: "tck-artifact-data",
    steps: complete([artifact("data", [{ data: { key: "value", count: 42 } }])]),
  },
  { prefix: "tck-message-response", reply: text("Direct message response"), steps: [] },
  {
    prefix: "tck-input-required",
    steps: [{ effects: [], end: { kind: "input-required", parts: text("Input required.") } }],
  },
  {
    prefix: "tck-reject-task",
    steps: [{ effects: [], end: { kind: "reject", parts: text("rejected") } }],
  },
  {
    prefix: "tck-stream-001",
    steps: complete([artifact("stream", text("Stream hello from TCK"))]),
  },
  { prefix: "tck-stream-002", steps: complete() },
  {
    prefix: "tck-stream-003",
    steps: complete([artifact("stream", text("Stream task lifecycle"))]),
  },
  {
    prefix: "tck-stream-ordering-001",
    steps: complete([artifact("ordered", text("Ordered output"))]),
  },
  {
    prefix: "tck-stream-artifact-text",
    steps: complete([artifact("text", text("Streamed text content"))]),
  },
  {
    prefix: "tck-stream-artifact-file",
    steps: complete([artifact("file", [{ raw: FILE_BYTES, ...FILE }])]),
  },
  {
    prefix: "tck-stream-artifact-chunked",
    steps: complete([
      { kind: "artifact", artifact: { artifactId: "chunked", parts: text("chunk-1 ") } },
      {
        kind: "artifact",
        artifact: { artifactId: "chunked", parts: text("chunk-2") },
        append: true,
        lastChunk: true,
      },
    ]),
  },
  {
    prefix: "test-resubscribe-message-id",
    steps: [
      { effects: [], end: { kind: "continue", afterMs: LONG_RUNNING_MS } },
      { effects: [], end: { kind: "complete" } },
    ],
  },
];

/** The scenario of a messageId: the longest prefix that matches, if any. */
function scenarioOf(messageId: string): Scenario | undefined {
  let found: Scenario | undefined;
  for (const scenario of SCENARIOS)
    if (
      messageId.startsWith(scenario.prefix) &&
      scenario.prefix.length > (found?.prefix.length ?? 0)
    )
      found = scenario;
  return found;
}

/**
 * Any other message: the agent echoes it as an artifact and waits for the next one
 * (input-required), so the task stays open for follow-ups, cancellation and history, which is
 * what clients without a scenario prefix (the v0.3 kit) go on to test; spec 0.3.0 §7.1 and
 * spec 1.0.1 §3.1.1 allow those only on a task that has not ended.
 */
function fallback(message: Message): ProgramStep[] {
  const said = message.parts
    .map((p) => p.text ?? "")
    .join(" ")
    .trim();
  const asked = `Unhandled messageId prefix: ${message.messageId.slice(0, 100)}. Send another message, or cancel the task.`;
  return [
    {
      effects: [artifact("echo", text(`Received: ${said || "(no text)"}`))],
      end: { kind: "input-required", parts: text(asked) },
    },
  ];
}

/** The conformance agent. */
export const conformanceProgram: AgentProgram = {
  reply: (message) => scenarioOf(message.messageId)?.reply ?? null,
  step(message, index) {
    const steps = scenarioOf(message.messageId)?.steps ?? fallback(message);
    return steps[index] ?? { effects: [], end: { kind: "complete" } };
  },
};
