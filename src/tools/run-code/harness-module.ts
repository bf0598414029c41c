/**
 * The module that runs first in every sandbox isolate (its main module). It captures console
 * output (bounded), provides the input (`input`, `readInput()`) and a tiny test API
 * (`test`/`it`, `describe`, `assert.*`, `expect()`), loads the workspace's modules through its
 * own `require` (workspace paths only; `./x.js` also finds `x.ts`), arms the guard, then runs the
 * entry (its default export or `main`, called with the input) or, in test mode, every test file's
 * tests in order, and answers one JSON report. All user code runs from the request handler.
 * Plain JavaScript, built as a string: it runs in the loaded isolate, not in this Worker.
 */
import { GUARD_MODULE } from "./guard-module.ts";

/** What the harness module is told. */
export interface HarnessOptions {
  mode: "run" | "test";
  /** Workspace paths to run: the entry (run) or the test files (test). */
  entries: string[];
  /** The JavaScript modules loaded beside the harness (workspace paths). */
  modules: string[];
  /** JSON files, by workspace path. */
  json: Record<string, unknown>;
  wallMs: number;
  maxOutputChars: number;
  maxIterations: number;
}

/** The harness module's source. */
export function harnessModule(options: HarnessOptions): string {
  const { json, modules, ...rest } = options;
  const imports = modules.map((path, i) => `import m${i} from ${JSON.stringify(`./${path}`)};`);
  const factories = modules.map((path, i) => `${JSON.stringify(path)}: m${i}`).join(", ");
  return `import { arm, modulesRan, stoppedBy } from "${GUARD_MODULE}";
${imports.join("\n")}
const OPTIONS = ${JSON.stringify(rest)};
const hasOwn = Object.hasOwn;
const FACTORIES = Object.assign(Object.create(null), { ${factories} });
const JSON_MODULES = Object.assign(Object.create(null), ${JSON.stringify(json)});
const clock = Date.now;
const race = Promise.race.bind(Promise);
const later = setTimeout;
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

const cache = Object.create(null);
function resolve(spec, from) {
  if (typeof spec !== "string" || !/^\\.\\.?\\//.test(spec))
    throw new Error("Cannot find module '" + spec + "': only the workspace's own files can be imported here, by relative path");
  const parts = from.split("/").slice(0, -1);
  for (const part of spec.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  const path = parts.join("/");
  const candidates = [path, path.replace(/\\.js$/, ".ts"), path.replace(/\\.mjs$/, ".mts")];
  for (const ext of [".ts", ".js", ".mts", ".mjs", ".json", "/index.ts", "/index.js"]) candidates.push(path + ext);
  for (const candidate of candidates)
    if (hasOwn(FACTORIES, candidate) || hasOwn(JSON_MODULES, candidate)) return candidate;
  throw new Error("Cannot find module '" + spec + "' from " + from + " (load it with the run: files)");
}
function load(path) {
  if (hasOwn(cache, path)) return cache[path].exports;
  if (hasOwn(JSON_MODULES, path)) return JSON_MODULES[path];
  const module = { exports: {} };
  cache[path] = module;
  FACTORIES[path]((spec) => load(resolve(spec, path)), module, module.exports);
  return module.exports;
}

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
let deadline = Infinity;
function withDeadline(promise) {
  return race([
    promise,
    new Promise((_, reject) => later(() => reject(new RangeError("time limit: still waiting after " + OPTIONS.wallMs + " ms")), Math.max(0, deadline - clock()))),
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
    arm({ wallMs: OPTIONS.wallMs, maxIterations: OPTIONS.maxIterations });
    deadline = clock() + OPTIONS.wallMs;
    const started = clock();
    const report = { exitCode: 0 };
    try {
      if (OPTIONS.mode === "test") {
        const results = [];
        for (const file of OPTIONS.entries) {
          const before = tests.length;
          await withDeadline(Promise.resolve().then(() => load(file)));
          for (const t of tests.slice(before)) {
            const t0 = clock();
            try {
              await withDeadline(Promise.resolve().then(() => t.fn()));
              results.push({ file, name: t.name, ok: true, ms: clock() - t0 });
            } catch (e) {
              if (stoppedBy()) throw e;
              results.push({ file, name: t.name, ok: false, ms: clock() - t0, error: errorOf(e) });
            }
          }
        }
        const failed = results.filter((r) => !r.ok).length;
        report.tests = { passed: results.length - failed, failed, results };
        if (failed > 0 || results.length === 0) report.exitCode = 1;
      } else {
        const mod = await withDeadline(Promise.resolve().then(() => load(OPTIONS.entries[0])));
        const main = typeof mod === "function" ? mod : typeof mod?.default === "function" ? mod.default : typeof mod?.main === "function" ? mod.main : null;
        if (main) report.result = resultOf(await withDeadline(Promise.resolve().then(() => main(input))));
      }
    } catch (e) {
      report.exitCode = 1;
      report.error = errorOf(stoppedBy() ?? e);
    }
    report.ran = modulesRan();
    report.durationMs = clock() - started;
    report.output = out.join("\\n");
    report.droppedChars = dropped;
    return Response.json(report);
  },
};
`;
}
