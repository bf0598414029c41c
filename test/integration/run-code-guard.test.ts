/**
 * run_code's guard is sealed against the code it guards: replacing the old global guard, the
 * clock or the error class, importing the guard module, or learning the guard's name from the
 * code's own source does not switch it off; slow iterations and recursion without loops are
 * stopped at the time limit too. Each run is judged by the isolate's own time (durationMs), which
 * the guard bounds: a run must stop within twice its limit. Also: snippets may `return`.
 */
import { describe, expect, it } from "vitest";
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
  it.each([
    ["replacing the old global guard", "globalThis.__a2aGuard = () => {};\nwhile (true) {}"],
    ["replacing the clock", "Date.now = () => 0;\nperformance.now = () => 0;\nwhile (true) {}"],
    ["replacing the error class", "globalThis.RangeError = class {};\nwhile (true) {}"],
    [
      "learning the guard's name from its own source",
      "const f = () => {};\nconst name = /__a2a_guard_[0-9a-f]+/.exec(String(f))[0];\nglobalThis[name] = () => {};\nwhile (true) {}",
    ],
    [
      "catching the guard's error and going on",
      "for (;;) { try { while (true) {} } catch (e) {} }",
    ],
    [
      "slow iterations (1 MiB each)",
      "let kept = 0;\nfor (let i = 0; i < 100000; i++) kept += new Uint8Array(1 << 20).fill(1)[7];",
    ],
    [
      "recursion without a loop",
      "const f = (n) => { try { f(n + 1); } catch (e) {} f(n + 1); };\nf(0);",
    ],
  ])("holds against %s", async (_, code) => {
    const { content, durationMs } = await stopped(code);
    expect(content).toContain(`RangeError: time limit: the code ran for more than ${LIMIT_MS} ms`);
    expect(durationMs).toBeGreaterThanOrEqual(LIMIT_MS);
    expect(durationMs).toBeLessThan(2 * LIMIT_MS);
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
