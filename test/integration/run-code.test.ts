/**
 * run_code: snippets, TypeScript, a workspace module and its test file, the network refused, a
 * thrown error with its stack, the wall-clock limit on a loop that never ends (the local runtime
 * does not enforce cpuMs), output bounds; and through the A2A endpoint: compaction of a long
 * passing run, and the verification gate satisfied by running the changed file.
 */
import { describe, expect, it } from "vitest";
import { sendTask, userMessage } from "../helpers/a2a.ts";
import { context, headline, owner, run, writeFiles } from "../helpers/code-context.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { textToolTurn as tool } from "../helpers/turns.ts";

describe("run_code", () => {
  it("runs a snippet: console output, the default export's result, timing", async () => {
    const result = await run({
      code: 'console.log("sum", 1 + 2); console.warn("careful"); export default (input) => ({ got: input, n: 42 });',
      input: "hello",
    });
    expect(result.isError).toBeUndefined();
    const lines = result.content.split("\n");
    expect(lines[0]).toMatch(/^run_code: exit 0 in \d+ ms \(isolate start and run: \d+ ms\)$/);
    expect(lines.slice(1)).toEqual([
      "--- output ---",
      "sum 3",
      "[warn] careful",
      "--- result ---",
      '{"got":"hello","n":42}',
    ]);
    const totalMs = Number(/isolate start and run: (\d+) ms/.exec(result.content)?.[1]);
    console.log(JSON.stringify({ msg: "run_code start-up", totalMs }));
  });

  it("strips TypeScript types", async () => {
    const result = await run({
      code: `interface Point { x: number; y: number }
type Pair = [Point, Point];
const dist = (p: Pair): number => Math.hypot(p[1].x - p[0].x, p[1].y - p[0].y);
enumless: {
  console.log(dist([{ x: 0, y: 0 }, { x: 3, y: 4 }]) as number);
}`,
    });
    expect(result.content).toContain("--- output ---\n5");
  });

  it("runs a workspace module and its test file: passed and failed counts, the failure's stack", async () => {
    const ctx = context(owner());
    await writeFiles(ctx, {
      "src/math.ts":
        "export function add(a: number, b: number): number {\n  return a + b;\n}\nexport const mul = (a: number, b: number) => a * b + 1; // bug\n",
      "src/math.test.ts":
        'import { add, mul } from "./math.js";\ndescribe("math", () => {\n  test("adds", () => { assert.equal(add(2, 3), 5); });\n  test("multiplies", () => { expect(mul(2, 3)).toBe(6); });\n});\n',
      "README.md": "not code",
    });
    const result = await run({ mode: "test" }, ctx);
    expect(result.isError).toBe(true);
    const lines = result.content.split("\n");
    expect(lines[0]).toMatch(/exit 1 .* · tests: 1 passed, 1 failed$/);
    expect(lines[1]).toMatch(/^ {2}✓ src\/math\.test\.ts > math > adds \(\d+ ms\)$/);
    expect(lines[2]).toBe("  ✗ src/math.test.ts > math > multiplies");
    expect(lines[3]).toBe("    AssertionError: expected 6, got 7");
    expect(result.content).toMatch(/at .*src\/math\.test\.ts:4:/);
    // Each module reports that it ran (the test file, then what it requires).
    expect(result.effects?.ran).toEqual(["src/math.test.ts", "src/math.ts"]);

    // Fixed, the same run passes; running one file by path with an import works too.
    await writeFiles(ctx, {
      "src/math.ts":
        "export function add(a: number, b: number): number {\n  return a + b;\n}\nexport const mul = (a: number, b: number) => a * b;\n",
    });
    expect(headline(await run({ mode: "test" }, ctx))).toMatch(
      /exit 0 .* tests: 2 passed, 0 failed$/,
    );
    await writeFiles(ctx, {
      "main.js": 'import { mul } from "./src/math.ts";\nexport default (n) => mul(Number(n), 7);\n',
    });
    const main = await run({ path: "main.js", input: "6" }, ctx);
    expect(main.content).toContain("--- result ---\n42");
    expect(main.effects?.ran).toEqual(["main.js", "src/math.ts"]);
  });

  it("fails only the code that imports a JSON file that does not parse (a damaged state file too)", async () => {
    const ctx = context(owner());
    await writeFiles(ctx, { "agent_state.json": '{"iteration": 2, oops' }, { harness: true });
    await writeFiles(ctx, {
      "config.json": '{"size": 3',
      "sum.test.ts": 'test("adds", () => { expect(1 + 2).toBe(3); });\n',
    });
    expect(headline(await run({ mode: "test" }, ctx))).toMatch(
      /exit 0 .* tests: 1 passed, 0 failed$/,
    );
    await writeFiles(ctx, {
      "config.test.ts":
        'import config from "./config.json";\ntest("size", () => { expect(config.size).toBe(3); });\n',
    });
    const failed = await run({ mode: "test" }, ctx);
    expect(failed.isError).toBe(true);
    expect(failed.content).toContain("--- error ---\nSyntaxError: config.json is not valid JSON");
  });

  it("has no network", async () => {
    const result = await run({
      code: 'export default async () => (await fetch("https://example.com/")).status;',
    });
    expect(result.isError).toBe(true);
    expect(result.content).toContain(
      "--- error ---\nError: This worker is not permitted to access the internet",
    );
  });

  it("reports a thrown error with its stack at the line in the code", async () => {
    const result = await run({
      code: 'const x = 1;\nfunction explode() {\n  throw new TypeError("boom at line 3");\n}\nexplode();\n',
      language: "javascript",
    });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("--- error ---\nTypeError: boom at line 3");
    expect(result.content).toMatch(/at explode \(snippet\.js:3:\d+\)/);
  });

  it("stops a loop that never ends, and a promise that never settles, at the wall-clock limit", async () => {
    const ctx = context(owner(), { timeoutMs: 150 });
    // Only the clock may stop these loops: however fast the machine, the iteration limit (the
    // next test's subject) is never reached first.
    ctx.config = {
      ...ctx.config,
      runCode: { ...ctx.config.runCode, maxIterations: Number.MAX_SAFE_INTEGER },
    };
    const started = Date.now();
    const spin = await run({ code: "let n = 0;\nwhile (true) { n++; }" }, ctx);
    const spinMs = Date.now() - started;
    expect(spin.isError).toBe(true);
    expect(spin.content).toContain("RangeError: time limit: the code ran for more than 150 ms");
    const forever = await run({ code: "export default () => new Promise(() => {});" }, ctx);
    expect(forever.content).toContain("RangeError: time limit: still waiting after 150 ms");
    // A try/catch around the loop body does not escape the guard.
    const caught = await run({ code: "for (;;) { try { for (;;) {} } catch {} }" }, ctx);
    expect(caught.content).toContain("RangeError: time limit");
    console.log(JSON.stringify({ msg: "run_code loop stopped", afterMs: spinMs }));
  });

  it("stops a loop in a module's top-level code at the time limit (no user code runs while a module is evaluated)", async () => {
    const ctx = context(owner(), { timeoutMs: 300 });
    await writeFiles(ctx, { "spin.js": "let n = 0;\nfor (;;) n++;\n" });
    const result = await run({ path: "spin.js" }, ctx);
    expect(result.content).toContain("RangeError: time limit: the code ran for more than 300 ms");
    expect(result.content).toMatch(/at .*spin\.js:2:/);
    // The iteration limit still holds: loop iterations and function calls count.
    const counted = context(owner());
    counted.config = {
      ...counted.config,
      runCode: { ...counted.config.runCode, maxIterations: 1_000_000 },
    };
    const calls = await run(
      { code: "const f = () => 1;\nlet n = 0;\nwhile (true) n += f();" },
      counted,
    );
    expect(calls.content).toContain(
      "RangeError: iteration limit: loops and calls ran more than 1000000 times",
    );
  });

  it("bounds the output and refuses bad input with what to send", async () => {
    const long = await run({
      code: 'for (let i = 0; i < 5000; i++) console.log("line " + i + " " + "x".repeat(40));',
    });
    expect(long.content).toMatch(/\[output limit reached: \d+ more characters not kept\]/);
    expect(long.content.length).toBeLessThan(25_000);
    const bad = await run({ language: "python" });
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain("Invalid input for run_code");
    const syntax = await run({ code: "const = 1" });
    expect(syntax.content).toContain("snippet.ts");
    expect(syntax.isError).toBe(true);
  });
});

/** The tool_result contents of the model's requests, in order. */
async function toolResults(scenarioId: string): Promise<string[]> {
  const out: string[] = [];
  for (const request of await modelRequests(scenarioId)) {
    const last = request.body.messages.at(-1);
    if (!Array.isArray(last?.content)) continue;
    for (const block of last.content as Array<{ type: string; content?: string }>)
      if (block.type === "tool_result") out.push(block.content ?? "");
  }
  return out;
}

describe("run_code through the A2A endpoint", () => {
  it("compacts a long passing run to its status and last lines", async () => {
    const s = await scenario([
      tool("run_code", { code: 'for (let i = 1; i <= 120; i++) console.log("row " + i);' }),
      { text: "Ran it." },
    ]);
    const task = await sendTask({ message: userMessage(`go ${s.marker}`) });
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const [result] = await toolResults(s.id);
    const lines = (result ?? "").split("\n");
    expect(lines[0]).toMatch(/^run_code: exit 0/);
    expect(lines[1]).toMatch(
      /^\[output compacted by the harness: the run passed; \d+ lines, the last \d+ follow\]$/,
    );
    expect(lines.at(-1)).toBe("row 120");
  });

  it("satisfies the verification gate by running the file it wrote", async () => {
    const file = `calc-${crypto.randomUUID().slice(0, 6)}.js`;
    const ran = await scenario([
      tool("write_file", { path: file, content: "export default () => 6 * 7;\n" }),
      tool("run_code", { path: file }),
      { text: "It returns 42." },
    ]);
    const task = await sendTask({ message: userMessage(`go ${ran.marker}`) });
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const requests = await modelRequests(ran.id);
    // Three model calls: write, run, answer; no verification reminder was needed.
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests.map((r) => r.body.messages.at(-1)))).not.toContain(
      "haven't verified the changes",
    );
    expect((await toolResults(ran.id))[1]).toContain("--- result ---\n42");
  });
});
