/**
 * The long-work script both long-work tests play, in workerd (test/integration/long-work.test.ts)
 * and under wrangler dev (test/e2e/long-work.test.ts): the sessions' scripted turns, what the
 * second session's environment note must show, and readers of the model requests a scenario got.
 * No bindings: it runs in workerd and in Node alike.
 */
import { expect } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { textToolTurn as tool } from "./turns.ts";

/** The messages of one model request. */
export type RequestMessages = ReadonlyArray<{ role: string; content: unknown }>;

export const PARSE = 'export const parse = (s: string) => s.split(",");\n';
export const PARSE_TEST =
  'import { parse } from "./parse.ts";\ntest("splits", () => { expect(parse("a,b")).toEqual(["a", "b"]); });\n';
export const FORMAT_TEST = 'test("formats", () => { expect(1 + 1).toBe(3); });\n';
/** A test that waits as long as delay.ts's `ms` says. */
export const SLOW_TEST =
  'import { ms } from "./delay.ts";\ntest("waits", async () => { await new Promise((r) => setTimeout(r, ms)); });\n';

/**
 * A later session's turns: the scripted model picks a turn by the number of assistant messages
 * in the request, and each earlier task of the conversation left one.
 */
export const laterSession = (sessions: number, turns: Turn[]): Turn[] => [
  ...Array.from({ length: sessions }, () => ({ text: "(an earlier session)" })),
  ...turns,
];

/** Every tool result the requests carried, once each (the prompt is compacted as it grows). */
export function toolResultTexts(requests: readonly RequestMessages[]): string[] {
  const seen = new Set<string>();
  for (const messages of requests)
    for (const m of messages)
      if (Array.isArray(m.content))
        for (const b of m.content as Array<{ type: string; content?: unknown }>)
          if (b.type === "tool_result")
            seen.add(
              typeof b.content === "string"
                ? b.content
                : ((b.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? "").join(""),
            );
  return [...seen];
}

/** The environment note the first of the requests opened with. */
export function openingNote(requests: readonly RequestMessages[]): string {
  const content = requests[0]?.at(-1)?.content as Array<{ text?: string }> | undefined;
  return content?.[0]?.text ?? "";
}

/** The sub-agent of session 1: it writes its findings to the conversation's scratchpad. */
export const RESEARCHER_TURNS: Turn[] = [
  tool("scratch_write", { path: "findings.md", content: "CSV quoting: RFC 4180." }),
  { text: "Wrote findings.md." },
];

/**
 * Session 1: two features with their tests, one test run (parse passing, format failing), the
 * researcher sub-agent (its scenario's `researcherMarker`), the handoff's next step.
 */
export function sessionOneTurns(researcherMarker: string): Turn[] {
  return [
    tool("write_file", { path: "parse.ts", content: PARSE }),
    tool("write_file", { path: "parse.test.ts", content: PARSE_TEST }),
    tool("write_file", { path: "format.test.ts", content: FORMAT_TEST }),
    tool("feature_update", {
      features: [
        { id: "parse", title: "Parse CSV", status: "in_progress", tests: ["parse.test.ts"] },
        { id: "format", status: "in_progress", tests: ["format.test.ts"] },
      ],
    }),
    tool("run_code", { mode: "test", tests: ["parse.test.ts", "format.test.ts"] }),
    tool("task", {
      subagent_type: "researcher",
      description: "look up CSV quoting",
      prompt: `Find the CSV quoting rules. ${researcherMarker}`,
    }),
    tool("progress_update", {
      accomplished: ["parse works"],
      remaining: ["Fix format so 1 + 1 formats"],
      nextAgent: "writer",
      continueFrom: "format.test.ts:1",
      notes: ["format.test.ts fails on purpose"],
    }),
    tool("read_file", { path: "parse.ts" }),
    tool("read_file", { path: "parse.test.ts" }),
    tool("read_file", { path: "format.test.ts" }),
    { text: "Session one done." },
  ];
}

/** What session 1's test run answers about the features. */
export const SESSION_ONE_RUN = "[feature_status.json: parse 1/1 passing; format 0/1 passing]";

/** Session 2: tries to write PROGRESS.json as a file (refused), writes and reads notes.md. */
export const SESSION_TWO_TURNS: Turn[] = laterSession(1, [
  tool("write_file", { path: "PROGRESS.json", content: '{"remaining":["INJECTED"]}' }),
  tool("write_file", { path: "notes.md", content: "format next" }),
  tool("read_file", { path: "notes.md" }),
  { text: "Session two done." },
]);

/** Session 2's note: what the harness checked at its start, from what session 1 left. */
export function expectSessionTwoNote(note: string): void {
  expect(note).toContain("## Features (feature_status.json)");
  expect(note).toContain("0 of 2 completed, 2 in progress");
  expect(note).toContain("- parse [in_progress] 1/1 passing (parse.test.ts)");
  expect(note).toContain("- format [in_progress] 0/1 passing (format.test.ts)");
  // Session 1 changed nothing after its test run: the passing test is not run again.
  expect(note).toMatch(
    /## Regression run\nNot re-run: the 1 test file that passed last time ran at .+, and nothing in the workspace changed since\./,
  );
  expect(note).toMatch(
    /## Recent changes \(newest first\)\n- \S+ \S+ create format\.test\.ts · assistant · task /,
  );
  expect(note).toContain("create parse.ts · assistant");
  expect(note).toContain("next agent writer · continue from format.test.ts:1");
  expect(note).toContain("- Fix format so 1 + 1 formats");
  expect(note).toContain("## Next agent\nwriter");
  expect(note).toContain(
    "## Scratchpad of this conversation (1 file; scratch_read)\n- findings.md",
  );
}

/** What session 2's tool results say of its write to PROGRESS.json. */
export const PROGRESS_REFUSED = "PROGRESS.json is kept by progress_update";

/** Session 3: reads the researcher's findings from the scratchpad. */
export const SESSION_THREE_TURNS: Turn[] = laterSession(2, [
  tool("scratch_read", { path: "findings.md" }),
  { text: "ok" },
]);

/** Session 4: puts `file` back as checkpoint `checkpoint` had it, then reads the state files. */
export const sessionFourTurns = (file: string, checkpoint: string | undefined): Turn[] =>
  laterSession(3, [
    tool("state_restore", { file, checkpoint }),
    tool("progress_read", {}),
    { text: "restored" },
  ]);
