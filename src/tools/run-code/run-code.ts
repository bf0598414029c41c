/**
 * `run_code`: runs JavaScript or TypeScript in a fresh, sandboxed Worker isolate (see
 * sandbox.ts): a snippet, a workspace file (with the workspace's other JS/TS/JSON files
 * importable; a JSON file that does not parse fails only the code importing it), or, in test
 * mode, the workspace's `*.test.{js,ts}` files with a small built-in test API. Output: a status line (exit code, time, test counts), the captured console output,
 * the entry's return value, the error with its stack. Effects: ran = the workspace files whose
 * code ran (counts as verification for the gate). A test run is recorded in feature_status.json:
 * every test file's outcome (named for a feature or not), and the feature it names (`feature`)
 * and every feature whose test files it ran get its counts.
 */
import { z } from "zod";
import type { SourceFile, ToolContext } from "../../loop/contracts.ts";
import { lazy } from "../../utils/lazy.ts";
import { recordTestRun } from "../../workspace/state/feature-record.ts";
import { featureIdSchema } from "../../workspace/state/feature-status.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import { defineTool } from "../input.ts";
import { type RunReport, runInSandbox, type SandboxProgram } from "./sandbox.ts";
import { guardNames } from "./transpiler.ts";

const CODE_FILE = /\.(js|mjs|ts|mts|json)$/;
const TEST_FILE = /\.test\.(js|mjs|ts|mts)$/;
const SNIPPET = { typescript: "snippet.ts", javascript: "snippet.js" } as const;

const schema = lazy(() =>
  z
    .strictObject({
      code: z.string().min(1).max(200_000).optional().describe("A snippet or module to run"),
      language: z.enum(["typescript", "javascript"]).default("typescript").describe("Of code"),
      path: z.string().min(1).optional().describe("A workspace file to run instead of code"),
      files: z
        .array(z.string().min(1))
        .max(200)
        .optional()
        .describe("Workspace files to load (default: every .js/.ts/.json file)"),
      mode: z.enum(["run", "test"]).default("run"),
      tests: z
        .array(z.string().min(1))
        .max(100)
        .optional()
        .describe("Test files (test mode; default all *.test.*)"),
      feature: featureIdSchema()
        .optional()
        .describe(
          "Test mode: the feature (feature_status.json id) these tests prove; its passing / total are recorded",
        ),
      input: z
        .string()
        .max(100_000)
        .optional()
        .describe("Input: the global input, readInput(), and main's argument"),
      timeout_ms: z
        .number()
        .int()
        .min(100)
        .optional()
        .describe("Wall-clock limit (capped by the deployment)"),
    })
    .refine((i) => i.mode === "test" || i.code !== undefined || i.path !== undefined, {
      message: "give code (a snippet) or path (a workspace file) to run, or mode: test",
    }),
);

/** What building and running a program needs: the workspace, the limits, the sandbox. */
type RunDeps = Pick<ToolContext, "workspace" | "config"> & {
  codeSandbox: NonNullable<ToolContext["codeSandbox"]>;
};

/** Reads a whole workspace file (paged reads). */
async function readWhole(context: RunDeps, path: string): Promise<string | { error: string }> {
  let content = "";
  let offset = 1;
  for (;;) {
    const read = await context.workspace.read(path, { offset, limit: 2_000 });
    if (!read.ok) return { error: read.error };
    content += `${read.value.content}${read.value.content.endsWith("\n") ? "" : "\n"}`;
    if (read.value.toLine >= read.value.totalLines) return content;
    offset = read.value.toLine + 1;
  }
}

/**
 * A JSON file as a module: its value, or (not JSON) a module that throws when imported, so a
 * damaged file (a state file too) fails only the code that imports it, not every run.
 */
function jsonModule(path: string, source: string): SandboxProgram["modules"][string] {
  try {
    return { json: JSON.parse(source) };
  } catch {
    const error = JSON.stringify(`${path} is not valid JSON`);
    return { js: `export default function () { throw new SyntaxError(${error}); }` };
  }
}

/** The sources of `paths`, in order, within `maxBytes` in all. */
async function readSources(
  context: RunDeps,
  paths: string[],
  maxBytes: number,
): Promise<Array<[string, string]> | { error: string }> {
  const sources: Array<[string, string]> = [];
  let bytes = 0;
  for (const path of paths) {
    const source = await readWhole(context, path);
    if (typeof source !== "string") return { error: source.error };
    bytes += source.length;
    if (bytes > maxBytes)
      return { error: `the code files add up to more than ${maxBytes} bytes; name fewer in files` };
    sources.push([path, source]);
  }
  return sources;
}

/** Builds the program: workspace modules (within limits), the snippet, what to import. */
async function program(
  data: z.infer<ReturnType<typeof schema>>,
  context: RunDeps,
): Promise<SandboxProgram | { error: string }> {
  const { maxModules, maxBytes } = context.config.runCode;
  let paths = data.files;
  if (!paths) {
    const listed = await context.workspace.list();
    if (!listed.ok) return { error: listed.error };
    paths = listed.value.entries.map((e) => e.path).filter((p) => CODE_FILE.test(p));
  }
  if (data.path && !paths.includes(data.path)) paths = [...paths, data.path];
  for (const test of data.tests ?? []) if (!paths.includes(test)) paths = [...paths, test];
  if (paths.length > maxModules)
    return {
      error: `the workspace has ${paths.length} code files, more than the ${maxModules} a run loads; name the ones needed in files`,
    };
  const sources = await readSources(context, paths, maxBytes);
  if ("error" in sources) return sources;
  const modules: SandboxProgram["modules"] = {};
  const files: SourceFile[] = [];
  for (const [path, source] of sources) {
    if (path.endsWith(".json")) modules[path] = jsonModule(path, source);
    else files.push({ path, source });
  }
  let entries: string[];
  if (data.mode === "test") {
    entries = data.tests ?? paths.filter((p) => TEST_FILE.test(p));
    if (entries.length === 0)
      return { error: "no test files: name them in tests, or add *.test.js / *.test.ts files" };
  } else if (data.code !== undefined) {
    const name = SNIPPET[data.language];
    files.push({ path: name, source: data.code, script: true });
    entries = [name];
  } else entries = [data.path as string];
  const transpiled = await context.codeSandbox.transpile(files, guardNames());
  for (const [i, module] of transpiled.entries()) {
    if (!module.ok) return { error: module.error };
    modules[files[i]?.path ?? ""] = { js: module.js };
  }
  return {
    modules,
    mode: data.mode,
    entries,
    input: data.input,
    env: context.codeSandbox.env,
  };
}

/** The text the model reads. */
function render(report: RunReport): string {
  const status = report.exitCode === 0 ? "exit 0" : `exit ${report.exitCode}`;
  const tests = report.tests
    ? ` · tests: ${report.tests.passed} passed, ${report.tests.failed} failed`
    : "";
  const lines = [
    `run_code: ${status} in ${report.durationMs} ms (isolate start and run: ${report.totalMs} ms)${tests}`,
  ];
  if (report.tests)
    for (const t of report.tests.results)
      lines.push(
        t.ok
          ? `  ✓ ${t.file} > ${t.name} (${t.ms} ms)`
          : `  ✗ ${t.file} > ${t.name}\n    ${(t.error?.stack || `${t.error?.name}: ${t.error?.message}`).split("\n").join("\n    ")}`,
      );
  if (report.output !== "") lines.push("--- output ---", report.output);
  if (report.droppedChars > 0)
    lines.push(`[output limit reached: ${report.droppedChars} more characters not kept]`);
  if (report.result !== undefined) lines.push("--- result ---", report.result);
  if (report.error)
    lines.push(
      "--- error ---",
      report.error.stack || `${report.error.name}: ${report.error.message}`,
    );
  return lines.join("\n");
}

/** The run_code tool. */
export const runCodeTool = defineTool({
  name: "run_code",
  domain: "code",
  description:
    "Run JavaScript or TypeScript in a fresh sandboxed isolate (no network, no files but the workspace code given to it) and see its console output, return value or error with stack. Give code (a snippet; its default export, if a function, is called with input) or path (a workspace file; the workspace's other .js/.ts/.json files can be imported by relative path). mode: test runs the workspace's *.test.js/*.test.ts files with built-in test(name, fn), describe, assert.equal/deepEqual/throws and expect(x).toBe/toEqual/toThrow, and reports passed and failed counts. Run the code you wrote before you say it works.",
  input: schema,
  async run(input, context) {
    const sandbox = context.codeSandbox;
    if (!sandbox)
      return {
        content: "run_code is not available here (no Worker Loader binding)",
        isError: true,
      };
    const built = await program(input, { ...context, codeSandbox: sandbox });
    if ("error" in built) return { content: `run_code: ${built.error}`, isError: true };
    const limits = context.config.runCode;
    const wallMs = Math.min(input.timeout_ms ?? sandbox.timeoutMs, sandbox.timeoutMs);
    const report = await runInSandbox(sandbox.loader, built, {
      cpuMs: sandbox.cpuMs,
      wallMs,
      maxOutputChars: limits.maxOutputChars,
      maxIterations: limits.maxIterations,
    });
    const ran = report.ran.filter((p) => !Object.values(SNIPPET).includes(p as never));
    const recorded =
      input.mode === "test" && report.tests
        ? await record(context, built.entries, report, input.feature)
        : "";
    return {
      content: `${render(report)}${recorded}`,
      ...(report.exitCode !== 0 ? { isError: true } : {}),
      effects: { ran },
    };
  },
});

/**
 * Records a test run in feature_status.json (every run, named for a feature or not); the line the
 * model reads about it: the features' counts, or the run's, and the test files that regressed.
 */
async function record(
  context: ToolContext,
  files: string[],
  report: RunReport,
  feature: string | undefined,
): Promise<string> {
  const outcomes = (report.tests?.results ?? []).map((t) => ({
    file: t.file,
    ok: t.ok,
    name: t.name,
  }));
  const recorded = await recordTestRun(
    context.workspace,
    { files, outcomes },
    { agent: context.agent, taskId: context.taskId, ...(feature ? { named: feature } : {}) },
  ).catch((error: unknown) => ({ ok: false as const, error: String(error) }));
  if (!recorded.ok) return `\n[feature_status.json not updated: ${recorded.error}]`;
  const lines = recorded.touched.map(
    (f) =>
      `${f.id} ${f.testsPassing}/${f.testsTotal} passing${f.regression ? " (REGRESSION)" : ""}`,
  );
  const results = recorded.status.testResults;
  const ran = (results?.files ?? []).filter((f) => outcomes.some((o) => o.file === f.file));
  if (lines.length === 0 && ran.length > 0) {
    const passing = ran.reduce((n, f) => n + f.passing, 0);
    const total = ran.reduce((n, f) => n + f.total, 0);
    lines.push(`tests ${passing}/${total} passing`);
  }
  const regressed = ran.filter((f) => f.regression).map((f) => f.file);
  if (regressed.length > 0)
    lines.push(`REGRESSION in ${regressed.join(", ")}: passed before, fails now`);
  return lines.length === 0 ? "" : `\n[feature_status.json: ${lines.join("; ")}]`;
}

/**
 * Runs workspace test files in the sandbox, as the harness (the session start's regression run):
 * the run's report, or why it could not run.
 */
export async function runWorkspaceTests(
  deps: {
    workspace: WorkspaceApi;
    config: ToolContext["config"];
    codeSandbox: NonNullable<ToolContext["codeSandbox"]>;
  },
  tests: string[],
  wallMs: number,
): Promise<RunReport | { error: string }> {
  const data = schema().parse({ mode: "test", tests });
  const built = await program(data, deps);
  if ("error" in built) return built;
  const limits = deps.config.runCode;
  return runInSandbox(deps.codeSandbox.loader, built, {
    cpuMs: deps.codeSandbox.cpuMs,
    wallMs: Math.min(wallMs, deps.codeSandbox.timeoutMs),
    maxOutputChars: limits.maxOutputChars,
    maxIterations: limits.maxIterations,
  });
}
