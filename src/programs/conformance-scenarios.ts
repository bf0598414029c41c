/**
 * What the conformance kits ask of an agent under test, by message prefix: the official TCK's
 * scenario files (`scenarios/*.feature` of a2aproject/a2a-tck: complete, artifacts of each part
 * kind, a Message instead of a Task, input-required, reject, the streaming scenarios, a long task)
 * and the SUT behaviour contract of ACTS (acts-specification.md §11: long-running work, multi-turn
 * input, a task kept working until canceled, a failed task, auth-required, a basic and a chunked
 * stream). Each scenario is one or more steps over the engine's generic abilities, and may say how
 * a follow-up without a prefix of its own is answered. Data and small builders only. Pure.
 */
import type { Artifact, Message, Part } from "../protocol/wire.ts";
import type { ProgramEffect, ProgramStep } from "./types.ts";

/** One scenario: its prefix, a direct Message answer or steps, and how follow-ups go. */
export interface Scenario {
  prefix: string;
  reply?: Part[];
  steps: ProgramStep[];
  /** The steps for a follow-up (one without a prefix of its own) to a task this scenario began. */
  followUp?(message: Message): ProgramStep[];
}

const text = (value: string): Part[] => [{ text: value }];

/** `tck` as base64: the bytes of the file artifacts. */
const FILE_BYTES = "dGNr";
const FILE = { filename: "output.txt", mediaType: "text/plain" };

const artifact = (artifactId: string, parts: Part[]): ProgramEffect => ({
  kind: "artifact",
  artifact: { artifactId, parts } satisfies Artifact,
  lastChunk: true,
});

/** A chunk of artifact `artifactId`: the first starts it, the others append, the last says so. */
const chunk = (artifactId: string, value: string, n: number, last: boolean): ProgramEffect => ({
  kind: "artifact",
  artifact: { artifactId, parts: text(value) },
  ...(n > 0 ? { append: true } : {}),
  ...(last ? { lastChunk: true } : {}),
});

/** Publishes `effects`, then completes (with a final message when `parts` are given). */
const complete = (effects: ProgramEffect[] = [], parts?: Part[]): ProgramStep[] => [
  { effects, end: parts ? { kind: "complete", parts } : { kind: "complete" } },
];

/** Waits for the person with `question`. */
const ask = (question: string): ProgramStep[] => [
  { effects: [], end: { kind: "input-required", parts: text(question) } },
];

/** How long the TCK's long-running scenario keeps working: twice its 2 s streaming timeout. */
const TCK_LONG_RUNNING_MS = 4_000;

/** ACTS `tck-long-running`: three working updates a second apart, then an artifact. */
const LONG_RUNNING_STEPS = 3;

/** ACTS `tck-cancel`: working until canceled, looked at every 5 s, failed after 5 minutes. */
const CANCEL_CHECK_MS = 5_000;
const CANCEL_CHECKS = 60;

/** Whether a follow-up says the multi-turn conversation is done. */
const saysDone = (message: Message) =>
  message.parts.some((p) => (p.text ?? "").trim().toLowerCase() === "done");

/** The official TCK's scenarios (keyed by the kit's messageId prefixes). */
const TCK_SCENARIOS: readonly Scenario[] = [
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
  { prefix: "tck-input-required", steps: ask("Input required.") },
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
    steps: complete([chunk("chunked", "chunk-1 ", 0, false), chunk("chunked", "chunk-2", 1, true)]),
  },
  {
    prefix: "test-resubscribe-message-id",
    steps: [
      { effects: [], end: { kind: "continue", afterMs: TCK_LONG_RUNNING_MS } },
      { effects: [], end: { kind: "complete" } },
    ],
  },
];

/** The ACTS SUT behaviours beyond the TCK's (keyed by the first text part's prefix). */
const ACTS_SCENARIOS: readonly Scenario[] = [
  {
    prefix: "tck-long-running",
    steps: [
      ...Array.from({ length: LONG_RUNNING_STEPS }, (_, i) => ({
        effects: [{ kind: "status", text: `Working (${i + 1} of ${LONG_RUNNING_STEPS})` } as const],
        end: { kind: "continue", afterMs: 1_000 } as const,
      })),
      ...complete([artifact("result", text("Long-running work done"))]),
    ],
  },
  {
    prefix: "tck-multi-turn",
    steps: ask("Send more input, or done to finish."),
    followUp: (message) =>
      saysDone(message)
        ? complete([], text("Conversation complete"))
        : ask("Noted. Send more input, or done to finish."),
  },
  {
    prefix: "tck-cancel",
    steps: [
      ...Array.from({ length: CANCEL_CHECKS }, () => ({
        effects: [],
        end: { kind: "continue", afterMs: CANCEL_CHECK_MS } as const,
      })),
      { effects: [], end: { kind: "fail", text: "tck-cancel: no cancel came in 5 minutes" } },
    ],
  },
  {
    prefix: "tck-task-failure",
    steps: [
      { effects: [], end: { kind: "fail", text: "tck-task-failure: the task failed as asked" } },
    ],
  },
  {
    prefix: "tck-auth-required",
    steps: [
      {
        effects: [],
        end: { kind: "auth-required", parts: text("Authorization required: reply to authorize.") },
      },
    ],
    followUp: () => complete([], text("Authorized")),
  },
  {
    prefix: "tck-stream-basic",
    steps: complete([artifact("stream", text("Streamed content"))]),
  },
  {
    prefix: "tck-stream-chunked",
    steps: complete([
      chunk("chunked", "chunk-1 ", 0, false),
      chunk("chunked", "chunk-2 ", 1, false),
      chunk("chunked", "chunk-3", 2, true),
    ]),
  },
];

/** Every scenario, TCK and ACTS, by prefix. */
export const SCENARIOS: readonly Scenario[] = [...TCK_SCENARIOS, ...ACTS_SCENARIOS];

/**
 * The ACTS behaviours (message prefixes) this agent implements: the standard contract of
 * acts-specification.md §11.2 plus `tck-auth-required` and `tck-artifact-file-url`.
 */
export const ACTS_BEHAVIOURS: readonly string[] = [
  "tck-complete-task",
  "tck-input-required",
  "tck-reject-task",
  "tck-message-response",
  "tck-artifact-text",
  "tck-artifact-file",
  "tck-artifact-file-url",
  "tck-artifact-data",
  ...ACTS_SCENARIOS.map((s) => s.prefix),
];
