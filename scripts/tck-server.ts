/**
 * The dev servers `npm run tck` checks: scripts/dev.ts (as `npm run dev` starts it) on a free
 * port with a state directory of its own and the vars a kit needs, its output in a log file, in its
 * own process group; ready once /health answers; stopped with its whole group (SIGTERM, then
 * SIGKILL after 10 s) and its state removed. Node only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A running dev server. */
export interface KitServer {
  /** Its origin, `http://127.0.0.1:<port>`. */
  base: string;
  /** Waits until it answers /health; false when it exited first or never answered. */
  ready(): Promise<boolean>;
  /** Stops it (its process group) and removes its state. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function waitForHealth(base: string, server: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 480 && server.exitCode === null; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

function stopGroup(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.pid === undefined) return Promise.resolve();
  const pid = server.pid;
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, 10_000);
    server.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      clearTimeout(force);
      resolve();
    }
  });
}

/** Starts scripts/dev.ts from `root` with `vars` (`NAME:value`), its output to `log`. */
export async function startKitServer(
  root: string,
  vars: string[],
  log: string,
): Promise<KitServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const state = mkdtempSync(join(tmpdir(), "a2a-tck-state-"));
  const out = createWriteStream(log);
  const server = spawn(
    process.execPath,
    [
      join(root, "scripts", "dev.ts"),
      "--port",
      String(port),
      "--persist-to",
      state,
      ...vars.flatMap((v) => ["--var", v]),
    ],
    { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout?.pipe(out);
  server.stderr?.pipe(out);
  return {
    base,
    ready: () => waitForHealth(base, server),
    stop: async () => {
      await stopGroup(server);
      out.end();
      rmSync(state, { recursive: true, force: true });
    },
  };
}
