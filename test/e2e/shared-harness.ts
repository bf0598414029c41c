/**
 * Scripted harnesses (the fake model and `wrangler dev` keyed to it) shared by the test files of
 * one vitest worker. `sharedScriptedHarness(vars)` returns the harness this worker runs for those
 * exact vars, starting it on first use; the next file on the worker with the same vars finds it
 * running, so a file does not pay a server's start. Files that import this module run in the e2e
 * config's `e2e-shared` project (vitest.e2e.config.ts picks them by that import): isolate off, so
 * one worker process runs file after file and keeps this module's servers. Files of one worker
 * run one at a time: a shared server serves one file at once, while the other worker has its own.
 *
 * A file on a shared server holds beside any other file's leftovers: it uses its own agents,
 * context ids, users and scenario ids, never stops, restarts or reconfigures the server, and does
 * not change what the server serves to everyone (no uploaded agent, no changed setting); a file
 * that must is not for sharing (start its own with startScriptedHarness). `release()` in afterAll
 * fails the file when the server went over one of Cloudflare's limits while the file ran. The
 * servers stop when the worker exits, and global-setup's teardown stops any a killed worker left.
 * Outside the shared project (a file that imports this module indirectly), `release()` stops the
 * harness, as startScriptedHarness's `stop()` does. Node only.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { until } from "../helpers/until.ts";
import {
  type DevServer,
  limitBreaches,
  type ScriptedHarness,
  startScriptedHarness,
} from "./dev-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where shared servers record their process groups (e2e-shared project only). */
    sharedServersDir: string;
  }
}

/** A harness lent to one test file. */
export interface SharedHarness extends Pick<ScriptedHarness, "fake" | "server" | "modelVars"> {
  /** Gives the harness back (afterAll); throws when the server went over Cloudflare's limits
   * while this file held it. */
  release(): Promise<void>;
}

/** This worker's harnesses, by their vars. */
const running = new Map<string, Promise<ScriptedHarness>>();

/** The process groups of this worker's servers, stopped when the worker exits. */
const groups = new Set<number>();

process.once("exit", () => {
  for (const group of groups) {
    try {
      process.kill(-group, "SIGTERM");
    } catch {
      // already gone
    }
  }
});

/** The directory the shared project's global setup provides, or undefined outside it. */
function serversDir(): string | undefined {
  try {
    return inject("sharedServersDir");
  } catch {
    return undefined;
  }
}

/** A key for `vars` that does not depend on their order. */
const keyOf = (vars: Record<string, string>) =>
  JSON.stringify(Object.entries(vars).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * What every shared server runs with. A keepalive each second: under wrangler dev a stream whose
 * client left is found gone only at its next write (wrangler's proxy does not cancel the Worker's
 * response when its client goes), and on a server whose pages many files reload, the per-caller
 * stream slots (one IP for all) must free within seconds.
 */
const SHARED_VARS = { SSE_KEEPALIVE_MS: "1000" };

async function start(vars: Record<string, string>, dir: string): Promise<ScriptedHarness> {
  const harness = await startScriptedHarness({ ...SHARED_VARS, ...vars });
  const group = harness.server.pid;
  if (group !== undefined) {
    groups.add(group);
    writeFileSync(join(dir, String(group)), harness.server.url);
  }
  return harness;
}

/**
 * The scripted harness this worker shares for `vars` (on top of startScriptedHarness's
 * defaults), started on first use.
 */
export async function sharedScriptedHarness(
  vars: Record<string, string> = {},
): Promise<SharedHarness> {
  const dir = serversDir();
  if (dir === undefined) {
    const own = await startScriptedHarness({ ...SHARED_VARS, ...vars });
    return { fake: own.fake, server: own.server, modelVars: own.modelVars, release: own.stop };
  }
  const key = keyOf(vars);
  let started = running.get(key);
  if (started === undefined) {
    started = start(vars, dir);
    running.set(key, started);
    // A failed start is not kept: the next file tries again (and fails with its own error).
    started.catch(() => running.delete(key));
  }
  const harness = await started;
  const before = limitBreaches(harness.server.output()).length;
  return {
    fake: harness.fake,
    server: harness.server,
    modelVars: harness.modelVars,
    async release() {
      const breaches = limitBreaches(harness.server.output()).slice(before);
      if (breaches.length > 0)
        throw new Error(`the server went over Cloudflare's limits:\n${breaches.join("\n")}`);
    },
  };
}

/**
 * Removes agent `name`, uploaded by a file on a shared server with an admin's `token`, and waits
 * until the server no longer serves it (the roster is read again within seconds), so the next
 * file finds the agents it started with.
 */
export async function removeUploadedAgent(
  server: Pick<DevServer, "url">,
  name: string,
  token: string,
): Promise<void> {
  const removed = await fetch(`${server.url}/api/admin/agents/${name}/identity`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${token}` },
  });
  if (removed.status !== 204) throw new Error(`removing ${name}: ${removed.status}`);
  await until(
    async () => (await fetch(`${server.url}/agents/${name}/.well-known/agent-card.json`)).status,
    (status) => status === 404,
    60_000,
  );
}
