/**
 * The records script both records tests play, in workerd (test/integration/long-work-records.test.ts)
 * and under wrangler dev (test/e2e/long-work-records.test.ts): five tasks of one conversation in
 * one workspace, and what each next task's environment note must show of the one before.
 *  1. writes slug() with its test and a failing kebab test, runs the tests (1 of 2 passing) with
 *     no feature named and no `feature_update`, records slug() as accomplished;
 *  2. "continue": answers only;
 *  3. breaks slug.ts and runs no test;
 *  4. "continue": the session start's regression run finds slug.test.ts failing;
 *  5. "continue": reads the state (progress_read).
 * No bindings: it runs in workerd and in Node alike.
 */
import { expect } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { laterSession } from "./long-work-script.ts";
import { textToolTurn as tool } from "./turns.ts";

export const SLUG = 'export const slug = (s: string) => s.toLowerCase().replace(/\\s+/g, "-");\n';
export const SLUG_TEST =
  'import { slug } from "./slug.ts";\ntest("slugs", () => { expect(slug("A B")).toBe("a-b"); });\n';
export const KEBAB_TEST = 'test("kebabs", () => { expect("a b").toBe("a-b"); });\n';
export const BROKEN_SLUG = "export const slug = (s: string) => s;\n";
const DONE = "slug() written and tested";

/** The five tasks' scripted turns. */
export const RECORDS_TURNS: Turn[][] = [
  [
    tool("write_file", { path: "slug.ts", content: SLUG }),
    tool("write_file", { path: "slug.test.ts", content: SLUG_TEST }),
    tool("write_file", { path: "kebab.test.ts", content: KEBAB_TEST }),
    tool("run_code", { mode: "test" }),
    tool("progress_update", { accomplished: [DONE], remaining: ["kebab()"] }),
    { text: "Built slug." },
  ],
  laterSession(1, [{ text: "Nothing I can add." }]),
  laterSession(2, [tool("write_file", { path: "slug.ts", content: BROKEN_SLUG }), { text: "ok" }]),
  laterSession(3, [{ text: "Saw it." }]),
  laterSession(4, [tool("progress_read", {}), { text: "ok" }]),
];

/** What task 5's progress_read answers of the tests the harness saw (`results`: its tool results). */
export function expectProgressRead(results: readonly string[]): void {
  const read = results.find((r) => r.startsWith("PROGRESS.json:")) ?? "";
  expect(read).toMatch(
    /tests run \(every run the harness saw\): 0 of 2 passing in 2 files, last at \S+ by task /,
  );
  expect(read).toContain(
    '{"file":"slug.test.ts","passing":"0/1","failed":["slugs"],"regression":true}',
  );
}

/** The quoted progress_log.md entry a note shows (empty when none). */
export function previousEntry(note: string): string {
  const start = note.indexOf("## Previous task (progress_log.md)\n");
  return start < 0 ? "" : note.slice(start, note.indexOf("</state-file>", start));
}

/** The section of a note that opens with `title` (to the next section). */
function sectionOf(note: string, title: string): string {
  const start = note.indexOf(title);
  if (start < 0) return "";
  const next = note.indexOf("\n## ", start + title.length);
  return note.slice(start, next < 0 ? undefined : next);
}

/**
 * What each next task's note shows (`notes[i]`: task i+1's opening note; `ids[i]`: task i+1's
 * id): the test results no `feature_update` declared, the previous entry (what that task did,
 * nothing of earlier tasks), a test that broke first, and no task recorded as passing tests it
 * broke.
 */
export function expectRecordNotes(notes: readonly string[], ids: readonly string[]): void {
  const [, two, three, four, five] = notes;
  const short = (i: number) => (ids[i] ?? "").slice(0, 8);

  // Task 2 starts where task 1 ended: 1 of 2 tests failing reaches it without feature_update.
  expect(two).toContain(
    `## Tests (feature_status.json: every run the harness saw)\n1 of 2 tests passing in 2 test files (last run `,
  );
  expect(sectionOf(two ?? "", "## Tests")).toContain(`task ${short(0)}).`);
  expect(two).toContain(
    "- kebab.test.ts: 0/1 passing; failing: kebabs\n- slug.test.ts: 1/1 passing",
  );
  expect(two).not.toContain("## Features (feature_status.json)");
  const one = previousEntry(two ?? "");
  expect(one).toContain(`· task ${ids[0]} · assistant · completed`);
  expect(one).toContain(`- Done: ${DONE}`);
  expect(one).toMatch(
    /- Files: created slug\.ts \(\+\d+\), created slug\.test\.ts \(\+\d+\), created kebab\.test\.ts \(\+\d+\)/,
  );
  expect(one).toContain(
    "- Tests: ran 2 test files: 1 of 2 passing; failing: kebab.test.ts (kebabs)",
  );
  expect(one).toMatch(
    /- Metrics: 3 files changed \(\+\d+ -0 lines\) · tests 1\/2 passing · \d+ model turns · \d+ tokens · \$\d+\.\d{4} · \d+ s/,
  );
  expect(two).toContain("## Next\n- kebab()");

  // Task 3's note: the "continue" task's entry claims nothing of task 1.
  const continued = previousEntry(three ?? "");
  expect(continued).toContain(`· task ${ids[1]} ·`);
  expect(continued).toContain(
    "- Done: nothing: no file changed, no PROGRESS.json item completed, no test run",
  );
  expect(continued).toContain("- Files: no file created, changed or deleted");
  expect(continued).toContain(
    `- Tests: none run by this task (last run: 1 of 2 passing, task ${short(0)})`,
  );
  expect(continued).toMatch(/· tests not run · \d+ model turns? ·/);
  expect(continued).not.toContain("slug()");
  expect(sectionOf(three ?? "", "## Latest handoff (HANDOFF.md)")).not.toContain(DONE);

  // Task 4's note: the test task 3 broke is flipped by the regression run and said first.
  const body = (four ?? "").slice((four ?? "").indexOf("# Environment"));
  expect(body.slice(body.indexOf("\n## "))).toMatch(
    /^\n## Tests \(feature_status\.json: every run the harness saw\)\nREGRESSION: slug\.test\.ts passed before and fails now \(0\/1 passing at [^)]+\); fix it first\./,
  );
  expect(four).toMatch(
    /Re-ran 1 test file that passed last time \(\d+ ms\): 1 REGRESSION: slug\.test\.ts/,
  );
  const broke = previousEntry(four ?? "");
  expect(broke).toContain(`· task ${ids[2]} ·`);
  expect(broke).toMatch(/- Files: changed slug\.ts \(\+1 -1\)/);
  expect(broke).toContain(
    `- Tests: none run by this task (last run: 1 of 2 passing, task ${short(0)}, before this task's changes)`,
  );
  expect(broke).toContain("· tests not run ·");
  expect(broke).not.toMatch(/tests \d+\/\d+ passing/);

  // Task 5's note: task 4's entry records the regression its session start found, not a pass.
  const four4 = previousEntry(five ?? "");
  expect(four4).toContain(`· task ${ids[3]} ·`);
  expect(four4).toContain(
    "- Tests: REGRESSION in slug.test.ts (passed before, fails now); ran 1 test file: 0 of 1 passing; failing: slug.test.ts (slugs)",
  );
  expect(four4).toContain("· tests 0/1 passing ·");
}
