/**
 * Runs modules in a fresh Worker isolate (the Worker Loader binding): no network
 * (`globalOutbound: null`), no bindings but those the agent's frontmatter grants, a CPU limit
 * (`limits.cpuMs`, enforced by Cloudflare; not by a local `wrangler dev`), and a wall-clock limit
 * enforced twice: by the sealed guard inside the isolate (guard-module.ts) and by this caller's
 * own timeout. No memory limit holds locally (see docs/harness.md, Code execution): on
 * Cloudflare an isolate over 128 MB is stopped and the run fails.
 */
import { GUARD_MODULE, guardModule } from "./guard-module.ts";
import { harnessModule } from "./harness-module.ts";

/** A sandbox run's limits. */
export interface SandboxLimits {
  cpuMs: number;
  wallMs: number;
  maxOutputChars: number;
  maxIterations: number;
}

/** What a run reports. */
export interface RunReport {
  exitCode: number;
  output: string;
  droppedChars: number;
  result?: string;
  error?: { name: string; message: string; stack: string };
  tests?: {
    passed: number;
    failed: number;
    results: Array<{
      file: string;
      name: string;
      ok: boolean;
      ms: number;
      error?: { name: string; message: string; stack: string };
    }>;
  };
  /** Module paths whose code ran. */
  ran: string[];
  /** Time inside the isolate (ms). */
  durationMs: number;
  /** Time from asking for the isolate to its answer (ms), start-up included. */
  totalMs: number;
}

/** The modules to load: workspace path -> JavaScript (or a JSON value), the entries to run. */
export interface SandboxProgram {
  modules: Record<string, { js: string } | { json: unknown }>;
  mode: "run" | "test";
  entries: string[];
  input: string | undefined;
  /** Bindings the agent's frontmatter grants (name -> binding). */
  env: Record<string, unknown>;
}

const COMPATIBILITY_DATE = "2026-11-02";

/** Runs `program`; a limit or a crash of the isolate comes back as a report, never a throw. */
export async function runInSandbox(
  loader: WorkerLoader,
  program: SandboxProgram,
  limits: SandboxLimits,
): Promise<RunReport> {
  const started = Date.now();
  const failed = (name: string, message: string) => failedRun(started, name, message);
  const worker = loadProgram(loader, program, limits);
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The caller's own bound: a little past the wall limit the guards enforce inside.
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), limits.wallMs + 1_000);
  });
  try {
    const response = await Promise.race([
      worker.getEntrypoint().fetch("http://sandbox/run", {
        method: "POST",
        body: JSON.stringify({ input: program.input }),
      }),
      timeout,
    ]);
    if (response === "timeout")
      return failed(
        "TimeoutError",
        `no answer within ${limits.wallMs + 1_000} ms; the run was abandoned`,
      );
    if (!response.ok) {
      const text = await response.text();
      return failed(
        "IsolateError",
        `the isolate failed (HTTP ${response.status}): ${text.slice(0, 500)}`,
      );
    }
    // The harness module's own answer (harness-module.ts writes it), not a caller's.
    const report = (await response.json()) as Omit<RunReport, "totalMs">;
    return { ...report, totalMs: Date.now() - started };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const cpu = /cpu|exceeded/i.test(message);
    return failed(
      cpu ? "CpuLimitError" : "IsolateError",
      cpu
        ? `the isolate was stopped: it used more than ${limits.cpuMs} ms of CPU (${message})`
        : `the isolate failed: ${message}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The isolate of `program`: its JavaScript modules, the guard and the harness module that runs
 * the entries (its JSON modules handed to the harness), no network, the CPU limit.
 */
function loadProgram(
  loader: WorkerLoader,
  program: SandboxProgram,
  limits: SandboxLimits,
): WorkerStub {
  const code: Record<string, { js: string }> = {};
  const json: Record<string, unknown> = {};
  for (const [path, module] of Object.entries(program.modules)) {
    if ("js" in module) code[path] = module;
    else json[path] = module.json;
  }
  return loader.load({
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: [],
    mainModule: "a2a-harness.js",
    modules: {
      ...code,
      [GUARD_MODULE]: { js: guardModule },
      "a2a-harness.js": harnessModule({
        mode: program.mode,
        entries: program.entries,
        modules: Object.keys(code),
        json,
        wallMs: limits.wallMs,
        maxOutputChars: limits.maxOutputChars,
        maxIterations: limits.maxIterations,
      }),
    },
    env: program.env,
    globalOutbound: null,
    limits: { cpuMs: limits.cpuMs },
  });
}

/** The report of a run that failed outside the program (a limit, the isolate), begun `started`. */
function failedRun(started: number, name: string, message: string): RunReport {
  return {
    exitCode: 1,
    output: "",
    droppedChars: 0,
    error: { name, message, stack: "" },
    ran: [],
    durationMs: Date.now() - started,
    totalMs: Date.now() - started,
  };
}
