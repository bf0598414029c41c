/**
 * Starts the harness the way a developer does (`npm run dev`, i.e. scripts/dev.ts with arguments
 * passed through to `wrangler dev`; `deployed`: `npm run dev -- --deployed`) on its own port and
 * state directory, in its own process group, and stops it by killing that group. Node only.
 * The local limit guard is on in every one (CF_PLAN, paid unless a var says free): stopping a
 * server that went over one of Cloudflare's limits throws, with what it logged, so the test file
 * fails.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { startFakeModel } from "../fake-model/server.ts";
import { collectOutput, ROOT, tempDir } from "./processes.ts";

/** Vars a developer's shell could set that must not leak into the server under test. */
const SCRUBBED = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "A2A_API_KEY",
  "PUBLIC_URL",
  "DEFAULT_AGENT",
  "SCRIPTED_MODEL",
];

/** A running dev server. */
export interface DevServer {
  url: string;
  port: number;
  persistDir: string;
  /** Its process group (the id of `npm run dev`'s script, which leads it). */
  pid: number | undefined;
  /** Everything the server printed so far. */
  output(): string;
  /**
   * Kills the whole process group (SIGKILL simulates a crash) and waits for it to exit; throws
   * when the server logged a breach of Cloudflare's limits.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The log lines of breaches of Cloudflare's limits (the local limit guard) in `output`. */
export function limitBreaches(output: string): string[] {
  return output.split("\n").filter((line) => line.includes("cloudflare limit exceeded"));
}

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  port: number;
  persistDir?: string;
  vars?: Record<string, string>;
  /** Further `wrangler dev` arguments (e.g. `--inspector-port` for a CPU profile). */
  extraArgs?: string[];
  /** The Node script that starts the server (default scripts/dev.ts; the bench's SDK Worker
   * peer has bench/sdk-worker/dev.ts), given the same arguments. */
  script?: string;
  /** `npm run dev -- --deployed`: the deployed settings, budgets included. */
  deployed?: boolean;
}

/** The banner's last line: `npm run dev` prints it once the server answers. */
export const BANNER_END = "Ctrl-C stops it";

/** A fresh directory for a server's local D1, R2 and Durable Object state. */
export function freshStateDir(): string {
  return tempDir("a2a-e2e-");
}

async function waitForHealth(
  url: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
  banner: boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`dev server exited (${child.exitCode}):\n${output()}`);
    // Ready as a developer sees it: the server answers and npm run dev printed its banner
    // (another script, such as the bench's SDK Worker peer, prints none: it only has to answer).
    if (!banner || output().includes(BANNER_END)) {
      const response = await fetch(`${url}/health`).catch(() => null);
      if (response?.ok) return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`dev server not ready after ${timeoutMs} ms:\n${output()}`);
}

/** Starts `node scripts/dev.ts --port P --persist-to DIR --var K:V ...` (or `options.script`) and
 * waits until it answers at /health. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const persistDir = options.persistDir ?? freshStateDir();
  const env: NodeJS.ProcessEnv = {
    // Errors only from wrangler itself: a green run prints no warnings it expects (the banner
    // and the Worker's own log lines still reach output()).
    WRANGLER_LOG: "error",
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
  };
  for (const name of SCRUBBED) delete env[name];
  // Tests and benchmarks spend millions of scripted tokens: no default budgets unless asked (or
  // deployed, where they are the deployed ones).
  const withDefaults = {
    ...(options.deployed
      ? {}
      : { BUDGET_TASK_TOKENS: "0", BUDGET_DAY_TOKENS: "0", BUDGET_MONTH_TOKENS: "0" }),
    ...options.vars,
  };
  const vars = Object.entries(withDefaults).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const child = spawn(
    process.execPath,
    [
      options.script ?? join(ROOT, "scripts", "dev.ts"),
      "--port",
      String(options.port),
      "--persist-to",
      persistDir,
      ...(options.deployed ? ["--deployed"] : []),
      ...vars,
      // Not wrangler's default inspector port 9229: servers of other runs on this machine
      // would race for it ("Address already in use").
      ...(options.extraArgs?.includes("--inspector-port")
        ? []
        : ["--inspector-port", String(await freePort())]),
      ...(options.extraArgs ?? []),
    ],
    {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const log = collectOutput(child).all;
  const url = `http://127.0.0.1:${options.port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const server: DevServer = {
    url,
    port: options.port,
    persistDir,
    pid: child.pid,
    output: log,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, signal);
        } catch {
          // already gone
        }
        const timer = setTimeout(() => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          } catch {
            // already gone
          }
        }, 5_000);
        await exited;
        clearTimeout(timer);
      }
      await waitForPortFree(options.port);
      const breaches = limitBreaches(log());
      if (breaches.length > 0)
        throw new Error(`the server went over Cloudflare's limits:\n${breaches.join("\n")}`);
    },
  };
  try {
    // Generous: a loaded 2-core machine has taken over 60 s to start wrangler and workerd.
    await waitForHealth(url, child, log, 180_000, options.script === undefined);
  } catch (error) {
    await server.stop("SIGKILL");
    throw error;
  }
  return server;
}

async function waitForPortFree(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
    } catch (error) {
      // Refused: the port is free. A slow answer (a loaded machine) is a server still there.
      if (!(error instanceof DOMException && error.name === "TimeoutError")) return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `npm run dev -- --port <port> --persist-to <dir>/.state` in a copy of the checkout (`dir`), as
 * a newcomer runs it: no key, no admin key, wrangler's default logging, in its own process group
 * (stop it by killing the group). Returns at once: the caller waits for the banner.
 */
export function startCopyDev(
  dir: string,
  port: number,
): { child: ChildProcess; output: () => string } {
  const env = { ...process.env };
  for (const name of ["ANTHROPIC_API_KEY", "ADMIN_API_KEY", "WRANGLER_LOG", "A2A_API_KEY"])
    delete env[name];
  const child = spawn(
    "npm",
    ["run", "dev", "--", "--port", String(port), "--persist-to", join(dir, ".state")],
    { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  return { child, output: collectOutput(child).all };
}

/**
 * The first port of the kernel's ephemeral range (Linux's default, `ip_local_port_range`): the
 * source ports of outgoing connections come from that range, so a port picked there can be taken
 * by any process's next connection between being found free and being bound.
 */
const EPHEMERAL_FROM = 32_768;
/** Where listening ports are picked: below the ephemeral range, above the well-known ones. */
const LISTEN_FROM = 20_000;

/** Whether `port` can be bound on 127.0.0.1 now. */
async function bindable(port: number): Promise<boolean> {
  const { createServer } = await import("node:net");
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A port free on 127.0.0.1 for a server to listen on: picked at random below the ephemeral range
 * (where no outgoing connection takes it meanwhile) and found bindable.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = LISTEN_FROM + Math.floor(Math.random() * (EPHEMERAL_FROM - LISTEN_FROM));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LISTEN_FROM} and ${EPHEMERAL_FROM}`);
}

/**
 * Starts a dev server on `options.port`, a port {@link freePort} found free; if another process
 * bound it meanwhile (wrangler takes seconds to bind), on another one, at most three times.
 * `options.port` is left at the port the server has.
 */
async function startOnFreePort(options: DevServerOptions): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServer(options);
    } catch (error) {
      if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
      options.port = await freePort();
    }
  }
}

/** A scripted model on 127.0.0.1 and a dev server that calls it (plus `vars`). */
export interface ScriptedHarness {
  fake: Awaited<ReturnType<typeof startFakeModel>>;
  /** The server; after {@link restart}, the restarted one. */
  server: DevServer;
  /** The vars that key a dev server to this model (for another server on it). */
  modelVars: Record<string, string>;
  /**
   * Starts the server again on the same port, state directory and vars, after stopping it if it
   * still runs (a test may have stopped or killed it first, as a crash would).
   */
  restart(): Promise<DevServer>;
  /** Stops the server, then the model. */
  stop(): Promise<void>;
}

/**
 * Starts the scripted model and a dev server keyed to it, with `vars` on top, on a fresh state
 * directory unless `persistDir` names one (`deployed`: with the deployed settings).
 */
export async function startScriptedHarness(
  vars: Record<string, string> = {},
  persistDir?: string,
  deployed = false,
): Promise<ScriptedHarness> {
  const fake = await startFakeModel({ port: 0 });
  const modelVars = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "e2e-key" };
  try {
    const options: DevServerOptions = {
      port: await freePort(),
      persistDir: persistDir ?? freshStateDir(),
      vars: { ...modelVars, ...vars },
      deployed,
    };
    const harness: ScriptedHarness = {
      fake,
      server: await startOnFreePort(options),
      modelVars,
      restart: async () => {
        await harness.server.stop();
        harness.server = await startDevServer(options);
        return harness.server;
      },
      stop: async () => {
        try {
          await harness.server.stop();
        } finally {
          await fake.close();
        }
      },
    };
    return harness;
  } catch (error) {
    await fake.close();
    throw error;
  }
}
