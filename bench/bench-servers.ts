/**
 * The servers a bench starts, and their end: dev servers (`npm run dev`'s script, or another such
 * as the SDK Worker peer's bench/sdk-worker/dev.ts) on free ports of 127.0.0.1, each with a state
 * directory of its own (on tmpfs, /dev/shm, when there is one, unless `disk`) and an inspector port
 * of its own (for a CPU profile), and the Node reference server (bench/reference-server.ts). A
 * dev server started `deployed` runs `npm run dev -- --deployed` with the bench's vars and user
 * (bench/deployed-profile.ts): its calls carry the user's token.
 * `stop()` stops every one of them, the last started first, and removes the state directories.
 * Node only.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../test/e2e/dev-server.ts";
import type { Target } from "./a2a-calls.ts";
import type { CpuTarget } from "./cpu-bench.ts";
import { benchUser, DEPLOYED_BENCH_VARS } from "./deployed-profile.ts";

/** A dev server under test: a target with an inspector port, which can be stopped early. */
export interface BenchServer extends CpuTarget {
  stop(): Promise<void>;
}

/** The servers of one bench run. */
export interface BenchServers {
  /** Whether the state directories are on tmpfs. */
  onTmpfs: boolean;
  /**
   * Starts a dev server named `name` in the tables (`script`: another than scripts/dev.ts;
   * `deployed`: the deployed profile, as the bench's user).
   */
  serve(
    name: string,
    options: { vars: Record<string, string>; script?: string; deployed?: boolean },
  ): Promise<BenchServer>;
  /** Starts the Node reference server calling the model at `modelUrl`, once it answers. */
  reference(modelUrl: string): Promise<Target>;
  /** Stops them all and removes their state. */
  stop(): Promise<void>;
}

const root = join(import.meta.dirname, "..");

/** The servers of a bench run; none is started yet. */
export function benchServers(options: { disk: boolean }): BenchServers {
  const onTmpfs = !options.disk && existsSync("/dev/shm");
  const dirs: string[] = [];
  const stops: Array<() => Promise<void> | void> = [];
  return {
    onTmpfs,
    async serve(name, { vars, script, deployed = false }) {
      const slug = name.replace(/\W+/g, "-").toLowerCase();
      const dir = mkdtempSync(join(onTmpfs ? "/dev/shm" : tmpdir(), `a2a-bench-${slug}-`));
      dirs.push(dir);
      const inspectorPort = await freePort();
      const server = await startDevServer({
        port: await freePort(),
        persistDir: dir,
        vars: deployed ? { ...DEPLOYED_BENCH_VARS, ...vars } : vars,
        extraArgs: ["--inspector-port", String(inspectorPort)],
        script,
        deployed,
      });
      stops.push(() => server.stop());
      const headers = deployed ? await benchUser(server) : undefined;
      return { name, base: server.url, inspectorPort, headers, stop: () => server.stop() };
    },
    async reference(modelUrl) {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [join(root, "bench", "reference-server.ts"), "--port", String(port), "--model", modelUrl],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
      stops.push(() => {
        child.kill();
      });
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 200; i++) {
        if (child.exitCode !== null) throw new Error("the reference server exited");
        if (
          await fetch(`${base}/health`).then(
            (r) => r.ok,
            () => false,
          )
        )
          return { name: "Node reference", base };
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`${base} did not answer`);
    },
    async stop() {
      for (const stop of stops.reverse()) await stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
