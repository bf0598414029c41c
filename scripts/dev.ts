/**
 * `npm run dev [-- <wrangler dev args>]`: stops at once, naming the process that holds it, when
 * the port is taken (port-holder.ts); else bundles the agents and the console, applies the D1
 * migrations to the local database (same --persist-to as the server), starts `wrangler dev`
 * (127.0.0.1:8787 unless --port/--ip say otherwise) with local D1, R2 and Durable Objects, and
 * prints one banner (model, auth, admin key, agents, console) once the server answers: the last
 * thing before the first request. Quiet otherwise: each step prints only warnings and errors.
 * Rebuilds the agents and the console when agents/ or src/console/static/ change (wrangler
 * reloads the Worker on any change under src/). Without an ANTHROPIC_API_KEY the harness runs
 * on the scripted local model.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, watch } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { IdentityError, parseIdentity } from "../src/agents/identity.ts";
import { banner, type DevPlan, flagValue, planDev, type ServerFacts } from "./dev-config.ts";
import {
  type ChangeOutcome,
  type ChangeTarget,
  changeLine,
  changeTarget,
  stderrFilter,
} from "./dev-log.ts";
import { portFree, portHolder, portTakenMessage } from "./port-holder.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const BUILDS = ["build-agents.ts", "build-console.ts"].map((f) => join(root, "scripts", f));

/** Runs a command; its output goes to the terminal except stdout when `quiet`. */
function run(command: string, commandArgs: string[], env: Record<string, string>, quiet: boolean) {
  return new Promise<number>((resolve) => {
    const child = spawn(command, commandArgs, {
      cwd: root,
      env: { ...process.env, ...env },
      // No stdin: wrangler asks nothing (a terminal would get its migration confirm prompt).
      stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"],
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/**
 * Bundles the agents and the console; their errors reach stderr. As under wrangler dev's watch
 * (WRANGLER_COMMAND=dev), an invalid IDENTITY.md is reported and bundled: that agent answers its
 * error while the others serve.
 */
async function build(): Promise<boolean> {
  for (const script of BUILDS)
    if ((await run(process.execPath, [script], { WRANGLER_COMMAND: "dev" }, true)) !== 0)
      return false;
  return true;
}

/** GET `path` of the server as JSON, or null. */
async function getJson<T>(url: string, headers: Record<string, string> = {}): Promise<T | null> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
    return response.ok || response.status === 503 ? ((await response.json()) as T) : null;
  } catch {
    return null;
  }
}

/** Waits until the server answers /health; false if wrangler exited first. */
async function ready(plan: DevPlan, child: ChildProcess): Promise<boolean> {
  while (child.exitCode === null && child.signalCode === null) {
    if (await getJson(`${plan.url}/health`)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** What the server says about its agents and the remote A2A agents it can reach. */
async function facts(plan: DevPlan): Promise<ServerFacts> {
  const list = await getJson<{ defaultAgent: string; agents: Array<{ name: string }> }>(
    `${plan.url}/agents`,
  );
  const deep =
    plan.remoteAgents && plan.sessionAdminKey
      ? await getJson<{ agents: ServerFacts["remote"] }>(`${plan.url}/health/deep`, {
          Authorization: `Bearer ${plan.sessionAdminKey}`,
        })
      : null;
  return {
    agents: list && { defaultAgent: list.defaultAgent, names: list.agents.map((a) => a.name) },
    remote: deep?.agents ?? [],
  };
}

/**
 * Calls `onChange` with the path of whatever changes under `dir`. One watcher per directory: a
 * recursive fs.watch on Linux loses a file once an editor replaces it by a rename.
 */
function watchTree(dir: string, onChange: (path: string) => void): void {
  const watched = new Set<string>();
  const add = (path: string) => {
    if (watched.has(path)) return;
    watched.add(path);
    watch(path, (_event, file) => {
      const changed = join(path, String(file ?? ""));
      if (existsSync(changed) && statSync(changed).isDirectory()) add(changed);
      onChange(changed);
    }).on("error", () => watched.delete(path));
    for (const entry of readdirSync(path, { withFileTypes: true }))
      if (entry.isDirectory()) add(join(path, entry.name));
  };
  add(dir);
}

/** What a rebuilt change did to its agent: served, broken (the build printed why) or removed. */
function agentOutcome(target: ChangeTarget): ChangeOutcome {
  if (!("agent" in target)) return "served";
  const file = `agents/${target.agent}/IDENTITY.md`;
  if (!existsSync(join(root, file))) return "removed";
  try {
    parseIdentity(file, readFileSync(join(root, file), "utf8"));
    return "served";
  } catch (error) {
    if (error instanceof IdentityError) return "broken";
    throw error;
  }
}

/** Rebuilds when agents/ or the console's static files change (debounced). */
function watchSources(): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const rebuild = (path: string) => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const target = changeTarget(relative(root, path));
      const outcome = (await build()) ? agentOutcome(target) : "failed";
      const line = changeLine(target, outcome);
      if (outcome === "served" || outcome === "removed") console.log(line);
      else console.error(line);
    }, 150);
  };
  watchTree(join(root, "agents"), rebuild);
  watchTree(join(root, "src", "console", "static"), rebuild);
}

/** wrangler's stderr, passed on line by line through {@link stderrFilter}. */
function passStderr(stream: NodeJS.ReadableStream): void {
  let rest = "";
  const shown = stderrFilter();
  const pass = (line: string) => {
    const text = shown(line);
    if (text !== null) process.stderr.write(`${text}\n`);
  };
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) pass(line);
  });
  stream.on("end", () => {
    if (rest) pass(rest);
  });
}

async function main(): Promise<number> {
  const plan = planDev(root, args, process.env);
  // Before anything is built, keyed or printed: a taken port would only fail later, in wrangler.
  const url = new URL(plan.url);
  const ip = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || 80);
  if (!(await portFree(ip, port))) {
    console.error(portTakenMessage(ip, port, portHolder(port)));
    return 1;
  }
  if (!(await build())) return 1;
  const persist = flagValue(args, "--persist-to");
  const migrated = await run(
    wrangler,
    ["d1", "migrations", "apply", "DB", "--local", ...(persist ? ["--persist-to", persist] : [])],
    plan.env,
    false,
  );
  if (migrated !== 0) return migrated;
  const child = spawn(wrangler, plan.args, {
    cwd: root,
    env: { ...process.env, ...plan.env },
    stdio: ["inherit", "inherit", "pipe"],
  });
  if (child.stderr) passStderr(child.stderr);
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))),
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  if (await ready(plan, child)) {
    console.log(banner(plan, await facts(plan)));
    watchSources();
  }
  return exited;
}

main().then((code) => process.exit(code));
