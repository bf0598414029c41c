/**
 * `npm run dev [-- <wrangler dev args>]`: stops at once, naming the process that holds it, when
 * the port is taken (port-holder.ts); else bundles the agents and the console, applies the D1
 * migrations to the local database (same --persist-to as the server), starts `wrangler dev`
 * (127.0.0.1:8787 unless --port/--ip say otherwise) with local D1, R2 and Durable Objects, and
 * prints one banner (model, auth, admin key, agents, console) once the server answers: the last
 * thing before the first request. Quiet otherwise: each step prints only warnings and errors.
 * Rebuilds the agents and the console when agents/, shared/ or src/console/static/ change
 * (wrangler reloads the Worker on any change of what it bundles). Tools in code are type-checked
 * as they change (tool-types.ts): a tool with a type error takes its agent offline, with the
 * error's file:line, until it is fixed; the other agents serve. Without an ANTHROPIC_API_KEY the
 * harness runs on the scripted local model.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync, watch } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { EntryProblem } from "../src/agents/agent-entry.ts";
import { writeAgentBundle } from "./agent-bundle.ts";
import { readAgentFolders, readSharedFolder } from "./agent-sources.ts";
import { banner, type DevPlan, flagValue, planDev, type ServerFacts } from "./dev-config.ts";
import {
  brokenAgentLine,
  type ChangeOutcome,
  type ChangeTarget,
  changeLine,
  changeTarget,
  stderrFilter,
} from "./dev-log.ts";
import { portFree, portHolder, portTakenMessage } from "./port-holder.ts";
import { syntaxProblems, ToolTypes } from "./tool-types.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const CONSOLE_BUILD = join(root, "scripts", "build-assets.ts");

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

/** The type errors of the tools in code, as the last check found them (by file). */
let problems = new Map<string, EntryProblem>();
/** The error printed last for each agent not served. */
const printed = new Map<string, string>();
/** The warnings the last build printed. */
let warned = new Set<string>();
/** The tools in code changed since the last type check, which will say what became of them. */
const pendingTools = new Set<string>();
/** Builds run one after another. */
let building: Promise<unknown> = Promise.resolve();
const types = new ToolTypes(root, (found, startedAt) => {
  problems = found;
  void queued(async () => {
    const broken = await build();
    // A check says what became of the files changed before it started; later ones wait for the next.
    for (const path of pendingTools) {
      const full = join(root, path);
      if (existsSync(full) && statSync(full).mtimeMs > startedAt) continue;
      report(changeTarget(path), broken);
      pendingTools.delete(path);
    }
  });
});

function queued<T>(work: () => Promise<T>): Promise<T> {
  const next = building.then(work);
  building = next.catch(() => {});
  return next;
}

/** Every tool in code now (repository-relative). */
function toolFilesNow(): string[] {
  return [...readAgentFolders(root).flatMap((f) => f.tools), ...readSharedFolder(root).tools].map(
    (tool) => tool.file,
  );
}

/**
 * Bundles the agents (in this process: lenient, with the tools' type errors) and the console;
 * errors and warnings (a likely typo of a model) reach stderr, each once until it changes
 * (`again`: that agent's even so). As
 * under wrangler dev's watch, an invalid agent is reported and bundled: it answers its error
 * while the others serve. The agents not served, or null when the build failed.
 */
async function build(again?: string): Promise<Map<string, string> | null> {
  let broken: Map<string, string>;
  let warnings: string[];
  try {
    ({ broken, warnings } = writeAgentBundle(root, { lenient: true, problems }));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return null;
  }
  const changed = again === undefined ? null : `agents/${again}/`;
  for (const warning of warnings)
    if (!warned.has(warning) || (changed !== null && warning.startsWith(changed)))
      console.error(warning);
  warned = new Set(warnings);
  for (const [agent, error] of broken)
    if (printed.get(agent) !== error || agent === again) console.error(brokenAgentLine(error));
  printed.clear();
  for (const [agent, error] of broken) printed.set(agent, error);
  return (await run(process.execPath, [CONSOLE_BUILD], {}, true)) === 0 ? broken : null;
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
function agentOutcome(target: ChangeTarget, broken: Map<string, string>): ChangeOutcome {
  if (!("agent" in target)) return "served";
  if (!existsSync(join(root, "agents", target.agent, "IDENTITY.md"))) return "removed";
  return broken.has(target.agent) ? "broken" : "served";
}

/** Prints what a rebuild did to a change's target. */
function report(target: ChangeTarget, broken: Map<string, string> | null): void {
  const outcome = broken === null ? "failed" : agentOutcome(target, broken);
  const line = changeLine(target, outcome);
  if (outcome === "served" || outcome === "removed") console.log(line);
  else console.error(line);
}

/** A tool in code (its type check, not the file watcher, says when it is ready). */
const isToolFile = (path: string) => /^(agents\/[^/]+|shared)\/tools\/.+\.ts$/.test(path);

/**
 * Rebuilds when agents/, shared/ or the console's static files change (debounced); a tool in
 * code that changed (and still exists) is rebuilt once its type check is done.
 */
function watchSources(): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const rebuild = (path: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const changed = relative(root, path).split(/[\\/]/).join("/");
      const target = changeTarget(changed);
      if (isToolFile(changed) && existsSync(path)) {
        pendingTools.add(changed);
        types.start();
        return;
      }
      void queued(async () =>
        report(target, await build("agent" in target ? target.agent : undefined)),
      );
    }, 150);
  };
  watchTree(join(root, "agents"), rebuild);
  watchTree(join(root, "src", "console", "static"), rebuild);
  // shared/ is watched from when it exists.
  const shared = join(root, "shared");
  let sharedWatched = existsSync(shared);
  if (sharedWatched) watchTree(shared, rebuild);
  else
    watch(root, (_event, name) => {
      if (sharedWatched || String(name) !== "shared" || !existsSync(shared)) return;
      sharedWatched = true;
      watchTree(shared, rebuild);
      rebuild(shared);
    }).on("error", () => {});
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
  const tools = toolFilesNow();
  problems = await syntaxProblems(root, tools);
  if ((await build()) === null) return 1;
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
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      types.stop();
      child.kill(signal);
    });
  if (await ready(plan, child)) {
    console.log(banner(plan, await facts(plan)));
    watchSources();
    if (tools.length > 0) types.start();
  }
  const code = await exited;
  types.stop();
  return code;
}

main().then((code) => process.exit(code));
