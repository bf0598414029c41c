/**
 * The module that runs first in every sandbox isolate (its main module). It captures console
 * output (bounded), provides the input (`input`, `readInput()`), the loop guard and ran-markers
 * the transpiler inserts, and a tiny test API (`test`/`it`, `describe`, `assert.*`, `expect()`),
 * then runs the entry (its default export or `main`, called with the input) or, in test mode,
 * every test file's tests in order, and answers one JSON report. Plain JavaScript, built as a
 * string: it runs in the loaded isolate, not in this Worker.
 */

/** What the harness module is told. */
export interface HarnessOptions {
  mode: "run" | "test";
  /** Module names to import: the entry (run) or the test files (test). */
  imports: string[];
  wallMs: number;
  maxOutputChars: number;
  maxIterations: number;
}

/** The harness module's source. */
export function harnessModule(options: HarnessOptions): string {
  return `const OPTIONS = ${JSON.stringify(options)};
const out = [];
let outChars = 0;
let dropped = 0;
function show(value) {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.stack || String(value);
  try {
    const json = JSON.stringify(value, (k, v) => (typeof v === "bigint" ? v.toString() + "n" : v));
    return json === undefined ? String(value) : json;
  } catch {
    return String(value);
  }
}
function write(prefix, args) {
  const line = prefix + args.map(show).join(" ");
  if (outChars + line.length + 1 > OPTIONS.maxOutputChars) {
    dropped += line.length + 1;
    return;
  }
  out.push(line);
  outChars += line.length + 1;
}
for (const name of ["log", "info", "debug", "trace"]) console[name] = (...args) => write("", args);
console.warn = (...args) => write("[warn] ", args);
console.error = (...args) => write("[error] ", args);
console.table = (value) => write("", [value]);

let iterations = 0;
let deadline = Infinity;
let stopped = null;
globalThis.__a2aGuard = () => {
  if (stopped) throw stopped;
  iterations++;
  if ((iterations & 1023) === 0 && Date.now() > deadline)
    stopped = new RangeError("time limit: the code ran for more than " + OPTIONS.wallMs + " ms (a loop that never ends?)");
  else if (iterations > OPTIONS.maxIterations)
    stopped = new RangeError("iteration limit: loops ran more than " + OPTIONS.maxIterations + " times");
  if (stopped) throw stopped;
};
const ran = [];
globalThis.__a2aRan = (path) => { ran.push(path); };

// The test API.
const tests = [];
let suite = [];
globalThis.test = globalThis.it = (name, fn) => tests.push({ name: [...suite, name].join(" > "), fn });
globalThis.describe = (name, fn) => { suite.push(name); try { fn(); } finally { suite.pop(); } };
class AssertionError extends Error { constructor(message) { super(message); this.name = "AssertionError"; } }
function deepEqual(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
}
function fail(message) { throw new AssertionError(message); }
const assert = (value, message) => { if (!value) fail(message || "expected a truthy value, got " + show(value)); };
assert.ok = assert;
assert.equal = (a, b, m) => { if (!Object.is(a, b)) fail(m || "expected " + show(b) + ", got " + show(a)); };
assert.strictEqual = assert.equal;
assert.notEqual = (a, b, m) => { if (Object.is(a, b)) fail(m || "expected a value other than " + show(b)); };
assert.deepEqual = (a, b, m) => { if (!deepEqual(a, b)) fail(m || "expected " + show(b) + ", got " + show(a)); };
assert.deepStrictEqual = assert.deepEqual;
assert.throws = (fn, expected, m) => {
  try { fn(); } catch (e) {
    if (expected instanceof RegExp && !expected.test(String(e && e.message))) fail(m || "threw " + show(e && e.message) + ", expected it to match " + expected);
    return;
  }
  fail(m || "expected the function to throw");
};
assert.rejects = async (promise, m) => {
  try { await (typeof promise === "function" ? promise() : promise); } catch { return; }
  fail(m || "expected a rejection");
};
globalThis.assert = assert;
globalThis.expect = (actual) => ({
  toBe: (v) => assert.equal(actual, v),
  toEqual: (v) => assert.deepEqual(actual, v),
  toBeTruthy: () => assert(actual),
  toBeFalsy: () => assert(!actual, "expected a falsy value, got " + show(actual)),
  toContain: (v) => assert(actual && actual.includes(v), "expected " + show(actual) + " to contain " + show(v)),
  toThrow: (v) => assert.throws(actual, v instanceof RegExp ? v : typeof v === "string" ? new RegExp(v) : undefined),
  toBeGreaterThan: (v) => assert(actual > v, "expected " + show(actual) + " > " + show(v)),
  toBeLessThan: (v) => assert(actual < v, "expected " + show(actual) + " < " + show(v)),
});

function errorOf(e) {
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack || "" };
  return { name: "Thrown", message: show(e), stack: "" };
}
function withDeadline(promise) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new RangeError("time limit: still waiting after " + OPTIONS.wallMs + " ms")), Math.max(0, deadline - Date.now()))),
  ]);
}
function resultOf(value) {
  if (value === undefined) return undefined;
  const text = show(value);
  return text.length > 4000 ? text.slice(0, 4000) + " [cut]" : text;
}

export default {
  async fetch(request) {
    const { input } = await request.json();
    globalThis.input = input;
    globalThis.readInput = () => input ?? "";
    deadline = Date.now() + OPTIONS.wallMs;
    const started = Date.now();
    const report = { exitCode: 0, ran };
    try {
      if (OPTIONS.mode === "test") {
        const results = [];
        for (const file of OPTIONS.imports) {
          const before = tests.length;
          await withDeadline(import(file));
          for (const t of tests.slice(before)) {
            const t0 = Date.now();
            try {
              await withDeadline(Promise.resolve().then(() => t.fn()));
              results.push({ file: file.slice(2), name: t.name, ok: true, ms: Date.now() - t0 });
            } catch (e) {
              if (stopped) throw e;
              results.push({ file: file.slice(2), name: t.name, ok: false, ms: Date.now() - t0, error: errorOf(e) });
            }
          }
        }
        const failed = results.filter((r) => !r.ok).length;
        report.tests = { passed: results.length - failed, failed, results };
        if (failed > 0 || results.length === 0) report.exitCode = 1;
      } else {
        const mod = await withDeadline(import(OPTIONS.imports[0]));
        const main = typeof mod.default === "function" ? mod.default : typeof mod.main === "function" ? mod.main : null;
        if (main) report.result = resultOf(await withDeadline(Promise.resolve().then(() => main(input))));
      }
    } catch (e) {
      report.exitCode = 1;
      report.error = errorOf(e);
    }
    report.durationMs = Date.now() - started;
    report.output = out.join("\\n");
    report.droppedChars = dropped;
    return Response.json(report);
  },
};
`;
}
