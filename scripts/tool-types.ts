/**
 * The type check of the tools in code while `npm run dev` runs, so a type error is reported at
 * its file:line and only the agents of that tool go offline: `tsc --watch` over
 * tsconfig.tools.json (the tools' files and what they import, with the project's compiler
 * options; incremental, so a change is checked in a moment once the first check is done), from
 * the first tool on. After each check it hands over the errors of files under agents/ and shared/
 * (the first of each file) as problems. Before the first check is done, {@link syntaxProblems}
 * finds what would stop the Worker's bundle itself (a tool that does not parse). Node only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { EntryProblem } from "../src/agents/agent-entry.ts";

/** The start and the end of one check in `tsc --watch`'s output. */
const STARTING = /Starting (incremental )?compilation/;
const CHECKED = /Found \d+ errors?\. Watching for file changes\./;
/** A diagnostic as `tsc --pretty false` prints it. */
const DIAGNOSTIC = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;

/** The problems of tsc's diagnostic `lines`, in agents/ and shared/, the first of each file. */
export function problemsOf(lines: readonly string[]): Map<string, EntryProblem> {
  const problems = new Map<string, EntryProblem>();
  for (const line of lines) {
    const match = DIAGNOSTIC.exec(line.trim());
    if (!match) continue;
    const [, file = "", row, column, code, message] = match;
    const path = file.replace(/\\/g, "/");
    if (!/^(agents|shared)\//.test(path) || problems.has(path)) continue;
    problems.set(path, {
      file: path,
      line: Number(row),
      column: Number(column),
      reason: `${code}: ${message}`,
    });
  }
  return problems;
}

/**
 * What one check found, and when it started (ms since the epoch): it covers the files changed
 * before then.
 */
export type CheckReport = (problems: Map<string, EntryProblem>, startedAt: number) => void;

/** `tsc --watch` over the tools, reporting each check's problems. */
export class ToolTypes {
  readonly #root: string;
  readonly #onCheck: CheckReport;
  #child: ChildProcess | null = null;

  constructor(root: string, onCheck: CheckReport) {
    this.#root = root;
    this.#onCheck = onCheck;
  }

  /** Whether the watcher runs. */
  get running(): boolean {
    return this.#child !== null;
  }

  /** Starts the watcher (once). */
  start(): void {
    if (this.#child) return;
    const tsc = join(this.#root, "node_modules", "typescript", "bin", "tsc");
    const args = [
      "--watch",
      "--preserveWatchOutput",
      "--pretty",
      "false",
      "-p",
      "tsconfig.tools.json",
    ];
    const child = spawn(process.execPath, [tsc, ...args], {
      cwd: this.#root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    this.#child = child;
    let lines: string[] = [];
    let rest = "";
    let startedAt = Date.now();
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      const all = (rest + chunk).split("\n");
      rest = all.pop() ?? "";
      for (const line of all) {
        if (STARTING.test(line)) {
          startedAt = Date.now();
          lines = [];
        } else if (CHECKED.test(line)) {
          this.#onCheck(problemsOf(lines), startedAt);
          lines = [];
        } else lines.push(line);
      }
    });
    child.once("exit", () => {
      this.#child = null;
    });
  }

  /** Stops the watcher. */
  stop(): void {
    this.#child?.kill();
    this.#child = null;
  }
}

/**
 * The syntax errors of `files` (repository-relative), the first of each: what would stop the
 * Worker's bundle, found in milliseconds, before the type check has run.
 */
export async function syntaxProblems(
  root: string,
  files: readonly string[],
): Promise<Map<string, EntryProblem>> {
  const problems = new Map<string, EntryProblem>();
  if (files.length === 0) return problems;
  const ts = (await import("typescript")).default;
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const { diagnostics = [] } = ts.transpileModule(text, {
      fileName: file,
      reportDiagnostics: true,
    });
    const first = diagnostics.find((d) => d.category === ts.DiagnosticCategory.Error);
    if (!first) continue;
    const at = first.file?.getLineAndCharacterOfPosition(first.start ?? 0);
    problems.set(file, {
      file,
      ...(at ? { line: at.line + 1, column: at.character + 1 } : {}),
      reason: `TS${first.code}: ${ts.flattenDiagnosticMessageText(first.messageText, " ")}`,
    });
  }
  return problems;
}
