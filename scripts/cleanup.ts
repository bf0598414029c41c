/**
 * Temporary files that do not outlive the script that made them, however it ends: each
 * directory made by `temporaryDir` is removed when the process exits (success, failure, an
 * uncaught error) and on SIGINT, SIGTERM or SIGHUP, which also stop the child process running
 * at that moment (wrangler, which would otherwise go on alone) before the script exits with
 * 128 + the signal's number. A second signal exits at once. Node only.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";

const temporary = new Set<string>();
let current: ChildProcess | undefined;
let installed = false;

/** Removes `path` (a directory made by temporaryDir) now. */
export function removeTemporary(path: string): void {
  rmSync(path, { recursive: true, force: true });
  temporary.delete(path);
}

function removeAll(): void {
  for (const path of temporary) removeTemporary(path);
}

/** A new directory under the system's temporary directory (mode 0700), removed at exit. */
export function temporaryDir(prefix: string): string {
  install();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.add(dir);
  return dir;
}

/** Notes the child process now running, to stop it if the script is interrupted. */
export function trackChild(child: ChildProcess): void {
  install();
  current = child;
  child.once("exit", () => {
    if (current === child) current = undefined;
  });
}

/** Installs the exit and signal handlers (once). */
function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", removeAll);
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
    process.on(signal, () => {
      const code = 128 + constants.signals[signal];
      removeAll();
      if (stopping) process.exit(code);
      stopping = true;
      if (process.stdin.isTTY) process.stdin.setRawMode(false);
      process.stderr.write(`\nstopped (${signal}); temporary files removed\n`);
      const child = current;
      if (!child) process.exit(code);
      child.once("exit", () => process.exit(code));
      child.kill(signal);
    });
}
