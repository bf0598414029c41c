/**
 * An ACTS run's results as people and tools read them: counts (passed, failed, skipped, errors)
 * per file and binding and per level, a table of them, the failures with their step and reason
 * (a failure the known disagreements explain says so), and the JSON report of
 * acts-specification.md §13 for one binding. Pure.
 */
import type { Binding } from "./model.ts";
import type { TestResult } from "./run-test.ts";

/** The four counts. */
export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  errors: number;
}

const empty = (): Tally => ({ passed: 0, failed: 0, skipped: 0, errors: 0 });

function add(tally: Tally, result: TestResult): void {
  if (result.result === "pass") tally.passed++;
  else if (result.result === "fail") tally.failed++;
  else if (result.result === "skip") tally.skipped++;
  else tally.errors++;
}

/** Counts by `key`, in first-seen order. */
export function tallyBy(results: TestResult[], key: (r: TestResult) => string): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const result of results) {
    const k = key(result);
    let tally = out.get(k);
    if (!tally) {
      tally = empty();
      out.set(k, tally);
    }
    add(tally, result);
  }
  return out;
}

const cell = (t: Tally | undefined) =>
  t ? `${t.passed} / ${t.failed} / ${t.skipped}${t.errors ? ` (${t.errors} errors)` : ""}` : "-";

/** A Markdown table: one row per file, one column per binding (passed / failed / skipped). */
export function resultTable(results: TestResult[], bindings: readonly Binding[]): string {
  const byCell = tallyBy(results, (r) => `${r.file} ${r.binding}`);
  const byBinding = tallyBy(results, (r) => r.binding);
  const files = [...new Set(results.map((r) => r.file))];
  const tests = (file: string) =>
    new Set(results.filter((r) => r.file === file).map((r) => r.id)).size;
  const header = `| file | tests | ${bindings.map((b) => `${b} (passed / failed / skipped)`).join(" | ")} |`;
  const rule = `| --- | --- | ${bindings.map(() => "---").join(" | ")} |`;
  const rows = files.map(
    (f) =>
      `| ${f} | ${tests(f)} | ${bindings.map((b) => cell(byCell.get(`${f} ${b}`))).join(" | ")} |`,
  );
  const total = new Set(results.map((r) => r.id)).size;
  const totals = `| **all** | ${total} | ${bindings.map((b) => `**${cell(byBinding.get(b))}**`).join(" | ")} |`;
  return [header, rule, ...rows, totals].join("\n");
}

/** One line per level and binding: `MUST jsonrpc 40 / 2 / 5`. */
export function levelLines(results: TestResult[]): string[] {
  const byLevel = tallyBy(results, (r) => `${r.level.toUpperCase()} ${r.binding}`);
  return [...byLevel].map(([k, t]) => `${k} ${cell(t)}`);
}

/** Each failure and error: level, binding, id, step and why (`known: ...` when explained). */
export function failureLines(
  results: TestResult[],
  known: (r: TestResult) => string | null,
): string[] {
  return results
    .filter((r) => r.result === "fail" || r.result === "error")
    .map((r) => {
      const why = known(r);
      const where = r.failure?.stepId ? ` (step ${r.failure.stepId})` : "";
      return `${r.level.toUpperCase()} [${r.binding}] ${r.id}${where}: ${why ? `known: ${why}` : (r.failure?.message ?? r.result)}`;
    });
}

/** The ACTS JSON report (§13) of one binding's results. */
export function actsReport(results: TestResult[], binding: Binding, durationMs: number) {
  const mine = results.filter((r) => r.binding === binding);
  const total = empty();
  for (const r of mine) add(total, r);
  const level = (l: TestResult["level"]) => {
    const t = empty();
    for (const r of mine.filter((x) => x.level === l)) add(t, r);
    return { total: mine.filter((x) => x.level === l).length, ...t };
  };
  const suites = [...new Set(mine.map((r) => r.suite))].map((id) => ({
    id,
    name: id,
    tests: mine
      .filter((r) => r.suite === id)
      .map((r) => ({
        id: r.id,
        name: r.name,
        level: r.level,
        result: r.result,
        duration_ms: r.durationMs,
        ...(r.skipReason ? { skip_reason: r.skipReason } : {}),
        ...(r.failure
          ? {
              failure: {
                message: r.failure.message,
                ...(r.failure.stepId ? { step_id: r.failure.stepId } : {}),
              },
            }
          : {}),
      })),
  }));
  return {
    acts_version: "1.0",
    spec_version: "1.0",
    generated_at: new Date().toISOString(),
    sdk: { name: "a2a-edge-harness", version: "0.1.0", language: "typescript" },
    transport: binding,
    summary: {
      total: mine.length,
      ...total,
      duration_ms: durationMs,
      by_level: { must: level("must"), should: level("should"), may: level("may") },
    },
    suites,
  };
}
