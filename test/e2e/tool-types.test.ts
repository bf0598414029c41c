/**
 * How `npm run dev` type-checks the tools in code (scripts/tool-types.ts), in Node without a
 * server: tsc's diagnostics become problems at file:line:column for files under agents/ and
 * shared/ only, the first of each file; a tool that does not parse is found before any type check.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { problemsOf, syntaxProblems } from "../../scripts/tool-types.ts";
import { tempDir } from "./processes.ts";

describe("the tools' type check", () => {
  it("reads tsc's errors under agents/ and shared/, the first of each file", () => {
    const problems = problemsOf([
      "agents/orders/tools/lookup.ts(9,11): error TS2322: Type 'string' is not assignable to type 'number'.",
      "  Type 'string' is not assignable to type 'number'.",
      "agents/orders/tools/lookup.ts(12,3): error TS2304: Cannot find name 'x'.",
      "shared/tools/clock.ts(1,1): error TS1005: ';' expected.",
      "src/tools/input.ts(3,3): error TS2304: Cannot find name 'y'.",
      "[12:00:00] File change detected. Starting incremental compilation...",
    ]);
    expect([...problems.values()]).toEqual([
      {
        file: "agents/orders/tools/lookup.ts",
        line: 9,
        column: 11,
        reason: "TS2322: Type 'string' is not assignable to type 'number'.",
      },
      { file: "shared/tools/clock.ts", line: 1, column: 1, reason: "TS1005: ';' expected." },
    ]);
  });

  it("finds a tool that does not parse at once, at its line", async () => {
    const root = tempDir("a2a-tool-types-");
    mkdirSync(join(root, "agents", "orders", "tools"), { recursive: true });
    writeFileSync(join(root, "agents/orders/tools/ok.ts"), "export default 1;\n");
    writeFileSync(
      join(root, "agents/orders/tools/bad.ts"),
      "export default {\n  name: 'x'\n  run\n",
    );
    const problems = await syntaxProblems(root, [
      "agents/orders/tools/ok.ts",
      "agents/orders/tools/bad.ts",
    ]);
    expect([...problems.keys()]).toEqual(["agents/orders/tools/bad.ts"]);
    expect(problems.get("agents/orders/tools/bad.ts")).toMatchObject({ line: 3, column: 3 });
    expect(problems.get("agents/orders/tools/bad.ts")?.reason).toMatch(/^TS1005: /);
  });
});
