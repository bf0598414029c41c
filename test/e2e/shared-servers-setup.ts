/**
 * Global setup of the e2e config's `e2e-shared` project: provides the directory where
 * shared-harness.ts records each shared server's process group (a file named by the group's id),
 * and at the end of the run stops every group still there (a worker that vitest killed leaves its
 * servers running), then removes the directory. Node only.
 */
import { readdirSync, rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { tempDir } from "./processes.ts";

/** Whether process group `group` still has a process. */
function alive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to `group`, if it is still there. */
function signal(group: number, name: NodeJS.Signals): void {
  try {
    process.kill(-group, name);
  } catch {
    // already gone
  }
}

/** Stops `group`: SIGTERM, then SIGKILL if it outlives 10 s. */
async function stopGroup(group: number): Promise<void> {
  signal(group, "SIGTERM");
  for (let waited = 0; alive(group) && waited < 10_000; waited += 100)
    await new Promise((r) => setTimeout(r, 100));
  signal(group, "SIGKILL");
}

export default function setup(project: TestProject) {
  const dir = tempDir("a2a-e2e-shared-");
  project.provide("sharedServersDir", dir);
  return async () => {
    await Promise.all(readdirSync(dir).map((name) => stopGroup(Number(name))));
    rmSync(dir, { recursive: true, force: true });
  };
}
