import { describe, expect, it } from "vitest";
import {
  applyFeatureChanges,
  applyTestRun,
  emptyFeatureStatus,
  type FeatureStatus,
  featureStatusText,
  parseFeatureStatus,
  passingTests,
  testsDue,
} from "../../../../src/workspace/state/feature-status.ts";
import {
  applyObservedRun,
  FAILED_NAMES_MAX,
  TEST_FILES_MAX,
  type TestOutcome,
} from "../../../../src/workspace/state/test-results.ts";

const by = (taskId: string, minute: number) => ({
  agent: "assistant",
  taskId,
  at: `2026-11-22T06:${String(minute).padStart(2, "0")}:00.000Z`,
});
const run = (status: FeatureStatus, outcomes: TestOutcome[], taskId: string, minute: number) =>
  applyTestRun(
    status,
    { files: [...new Set(outcomes.map((o) => o.file))], outcomes },
    by(taskId, minute),
  ).status;

describe("test results observed by the harness (feature_status.json's testResults)", () => {
  it("records every run per file and in all, with no feature named", () => {
    const status = run(
      emptyFeatureStatus("2026-11-22T06:00:00.000Z"),
      [
        { file: "parse.test.ts", ok: true, name: "splits" },
        { file: "format.test.ts", ok: false, name: "formats" },
      ],
      "t-1",
      1,
    );
    expect(status.features).toEqual([]);
    expect(status.testResults).toMatchObject({
      passing: 1,
      failing: 1,
      total: 2,
      taskId: "t-1",
      at: "2026-11-22T06:01:00.000Z",
    });
    expect(status.testResults?.files).toEqual([
      expect.objectContaining({ file: "parse.test.ts", passing: 1, failing: 0, failed: [] }),
      expect.objectContaining({ file: "format.test.ts", failing: 1, failed: ["formats"] }),
    ]);
    // The file as written parses back (the schema holds the new field).
    expect(parseFeatureStatus(featureStatusText(status)).status).toEqual(status);
  });

  it("flips a file that passed to a regression when it fails, until it passes again", () => {
    let status = run(emptyFeatureStatus(""), [{ file: "slug.test.ts", ok: true }], "t-1", 1);
    status = run(status, [{ file: "slug.test.ts", ok: false }], "t-2", 2);
    expect(status.testResults?.files[0]).toMatchObject({ regression: true, taskId: "t-2" });
    status = run(status, [{ file: "slug.test.ts", ok: false }], "t-3", 3);
    expect(status.testResults?.files[0]?.regression).toBe(true);
    status = run(status, [{ file: "slug.test.ts", ok: true }], "t-4", 4);
    expect(status.testResults?.files[0]?.regression).toBe(false);
    // A file that never passed is failing, not a regression.
    status = run(status, [{ file: "new.test.ts", ok: false }], "t-5", 5);
    expect(status.testResults?.files.at(-1)?.regression).toBe(false);
  });

  it("keeps the results through feature_update", () => {
    const status = run(emptyFeatureStatus(""), [{ file: "a.test.ts", ok: true }], "t-1", 1);
    const changed = applyFeatureChanges(status, [{ id: "a" }], [], by("t-2", 2));
    expect(changed.ok && changed.value.testResults).toEqual(status.testResults);
  });

  it("puts observed passing files in the regression run, due once the workspace changed", () => {
    const status = run(
      emptyFeatureStatus(""),
      [
        { file: "a.test.ts", ok: true },
        { file: "b.test.ts", ok: false },
      ],
      "t-1",
      1,
    );
    expect(passingTests(status)).toEqual(["a.test.ts"]);
    expect(testsDue(status, "2026-11-22T06:00:30.000Z")).toEqual([]);
    expect(testsDue(status, "2026-11-22T06:02:00.000Z")).toEqual(["a.test.ts"]);
  });

  it("stays bounded: the longest unrun files roll off, a few failure names a file", () => {
    const many: TestOutcome[] = Array.from({ length: TEST_FILES_MAX + 3 }, (_, i) => ({
      file: `f${i}.test.ts`,
      ok: true,
    }));
    const names: TestOutcome[] = Array.from({ length: 9 }, (_, i) => ({
      file: "many.test.ts",
      ok: false,
      name: `t${i} ${"x".repeat(500)}`,
    }));
    const results = applyObservedRun(undefined, [...many, ...names], { at: "", taskId: "t" });
    expect(results.files).toHaveLength(TEST_FILES_MAX);
    expect(results.files[0]?.file).toBe("f4.test.ts");
    const last = results.files.at(-1);
    expect(last?.failed).toHaveLength(FAILED_NAMES_MAX);
    expect(last?.failed[0]?.length).toBeLessThanOrEqual(200);
    expect(last?.failing).toBe(9);
  });
});
