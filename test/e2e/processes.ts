/**
 * Child processes of the end-to-end tests: the repository's root, fresh temporary directories
 * (a copy of the checkout in one), what a child prints collected as it arrives, and a Node script
 * of the repository run as a user runs it (its own process, from the root). Node only.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The repository's root. */
export const ROOT = join(import.meta.dirname, "..", "..");

/** A fresh directory in the system's temporary directory, its name starting with `prefix`. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Copies the checkout's files as they are now (tracked and new, not ignored: no generated ones)
 * into `dir`, as a fresh clone has them, and links its node_modules.
 */
export function copyCheckout(dir: string): void {
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: ROOT, encoding: "utf8" },
  )
    .split("\0")
    .filter((f) => f && existsSync(join(ROOT, f)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(dir, file));
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
}

/** What a process printed so far. */
export interface Output {
  out(): string;
  err(): string;
  /** stdout and stderr together, in the order they arrived. */
  all(): string;
}

/** Collects what `child` prints on its piped stdout and stderr. */
export function collectOutput(child: ChildProcess): Output {
  let out = "";
  let err = "";
  let all = "";
  // Decoded as streams: a character split between two chunks stays whole.
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (d: string) => {
    out += d;
    all += d;
  });
  child.stderr?.on("data", (d: string) => {
    err += d;
    all += d;
  });
  return { out: () => out, err: () => err, all: () => all };
}

/** What a run printed and how it ended (-1: ended by a signal). */
export interface Run {
  code: number;
  out: string;
  err: string;
}

/** A Node script of the repository, started. */
export interface StartedNode {
  child: ChildProcess;
  output: Output;
  /** Resolves once the process closed. */
  done: Promise<Run>;
}

/** Options of {@link startNode} and {@link runNode}. */
export interface NodeOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** "ignore": no stdin at all (a prompt reads end of input); by default a pipe left open. */
  stdin?: "pipe" | "ignore";
}

/** Starts `node <script> <args>` (`script` relative to the root) from the root. */
export function startNode(script: string, args: string[], options: NodeOptions = {}): StartedNode {
  const child = spawn(process.execPath, [join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: [options.stdin ?? "pipe", "pipe", "pipe"],
  });
  const output = collectOutput(child);
  const done = new Promise<Run>((resolve) =>
    child.once("close", (code) =>
      resolve({ code: code ?? -1, out: output.out(), err: output.err() }),
    ),
  );
  return { child, output, done };
}

/**
 * Runs `node <script> <args>` from the root to its end; asynchronous, so that servers in this
 * process keep answering while it runs. `input`, when given, is written to its stdin and stdin
 * closed.
 */
export function runNode(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<Run> {
  const started = startNode(script, args, { env: options.env ?? {} });
  if (options.input !== undefined) started.child.stdin?.end(options.input);
  return started.done;
}
