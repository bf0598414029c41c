/**
 * run_code's guard is sealed against the code it guards: replacing the old global guard, the
 * clock or the error class, importing the guard module, or learning the guard's name from the
 * code's own source does not switch it off; slow iterations and recursion without loops are
 * stopped at the time limit too (test/fixtures/guard-escapes.ts): each ends with the time limit's
 * error, no sooner than its limit by the isolate's own time (durationMs). How soon after the limit
 * each stops is a figure of `npm run bench:run-code`, not asserted. Also: snippets may `return`.
 */
import { describe, expect, it } from "vitest";
import { GUARD_ESCAPES } from "../fixtures/guard-escapes.ts";
import { context, owner, run } from "../helpers/code-context.ts";

const LIMIT_MS = 500;

/** Runs `code` with the wall-clock limit; the isolate's own duration of the run. */
async function stopped(code: string): Promise<{ content: string; durationMs: number }> {
  const result = await run(
    { code, language: "javascript" },
    context(owner(), { timeoutMs: LIMIT_MS }),
  );
  const durationMs = Number(/^run_code: exit \d+ in (\d+) ms/.exec(result.content)?.[1]);
  console.log(JSON.stringify({ msg: "run_code guard", code: code.slice(0, 60), durationMs }));
  return { content: result.content, durationMs };
}

describe("run_code's guard", () => {
  it.each(GUARD_ESCAPES)("holds against %s", async (_, code) => {
    const { content, durationMs } = await stopped(code);
    expect(content).toContain(`RangeError: time limit: the code ran for more than ${LIMIT_MS} ms`);
    // The time limit stopped it: not before the limit; how soon after is the machine's speed,
    // measured in bench/run-code.ts (a run that never stopped would hit the test's timeout).
    expect(durationMs).toBeGreaterThanOrEqual(LIMIT_MS);
  });

  it("cannot be imported, re-armed or reached by the code", async () => {
    const result = await run(
      {
        code: 'import { arm } from "/a2a-guard.js";\narm({ wallMs: 1e9, maxIterations: 1e12 });\nexport default () => { while (true) {} };',
        language: "javascript",
      },
      context(owner(), { timeoutMs: LIMIT_MS }),
    );
    expect(result.isError).toBe(true);
    expect(result.content).toContain("Cannot find module '/a2a-guard.js'");
  });
});

describe("snippets", () => {
  it("may return at the top level, in JavaScript and TypeScript", async () => {
    const js = await run({
      code: "const x = 2;\nif (x > 1) return x * 21;\nreturn 0;",
      language: "javascript",
    });
    expect(js.content).toContain("--- result ---\n42");
    const ts = await run({ code: "const n: number = await Promise.resolve(6);\nreturn n * 7;" });
    expect(ts.content).toContain("--- result ---\n42");
  });

  it("refuses top-level await in a module, with what to do instead", async () => {
    const result = await run({ code: "await null;\nexport const x = 1;", language: "javascript" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("top-level await is not supported here");
  });
});
