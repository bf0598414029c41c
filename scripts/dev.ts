/**
 * `npm run dev [-- <wrangler dev args>]`: bundles the agents, applies the D1 migrations to the
 * local database (same --persist-to as the server), says which model tasks will run on, then
 * starts `wrangler dev` (127.0.0.1:8787 unless --port/--ip say otherwise) with local D1, R2 and
 * Durable Objects. Without an ANTHROPIC_API_KEY the harness uses the scripted local model.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

function run(command: string, commandArgs: string[], env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function flagValue(name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const arg = args[i] as string;
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[i + 1];
}

function fileHasKey(file: string, name = "ANTHROPIC_API_KEY"): boolean {
  const path = join(root, file);
  return (
    existsSync(path) &&
    new RegExp(`^\\s*${name}\\s*=\\s*\\S+`, "m").test(readFileSync(path, "utf8"))
  );
}

const wrangler = join(root, "node_modules", ".bin", "wrangler");
// As under wrangler dev's watch: an invalid IDENTITY.md is reported and the other agents serve.
run(process.execPath, [join(root, "scripts", "build-agents.ts")], {
  ...process.env,
  WRANGLER_COMMAND: "dev",
});
run(process.execPath, [join(root, "scripts", "build-console.ts")]);

const persist = flagValue("--persist-to");
run(wrangler, [
  "d1",
  "migrations",
  "apply",
  "DB",
  "--local",
  ...(persist ? ["--persist-to", persist] : []),
]);

const hasKey =
  fileHasKey(".dev.vars") ||
  (!existsSync(join(root, ".dev.vars")) &&
    (Boolean(process.env.ANTHROPIC_API_KEY) || fileHasKey(".env")));
const banner = hasKey
  ? "model: Claude via the Anthropic API (ANTHROPIC_API_KEY found)"
  : "model: SCRIPTED LOCAL MODEL, not Claude. No ANTHROPIC_API_KEY in .dev.vars, .env or the environment;\n       put ANTHROPIC_API_KEY=... in .dev.vars to talk to Claude.";
// Open for newcomers: anonymous callers are served locally unless AUTH_REQUIRED=true is passed.
const authRequired = args.some((a) => /^AUTH_REQUIRED[:=](true|1|yes|on)$/i.test(a));
const authLine = authRequired
  ? "auth: REQUIRED (AUTH_REQUIRED=true): send Authorization: Bearer <token> (npm run users -- add)"
  : "auth: OPEN for local use (ALLOW_ANONYMOUS=true); pass --var AUTH_REQUIRED:true to close it";
// An admin key for this session, unless one is configured: the admin API and /health/deep.
const configuredAdminKey =
  fileHasKey(".dev.vars", "ADMIN_API_KEY") ||
  fileHasKey(".env", "ADMIN_API_KEY") ||
  Boolean(process.env.ADMIN_API_KEY) ||
  args.some((a) => a.startsWith("ADMIN_API_KEY:"));
const sessionAdminKey = configuredAdminKey ? null : `dev-admin-${randomUUID()}`;
const port = flagValue("--port") ?? "8787";
const ip = flagValue("--ip") ?? "127.0.0.1";
console.log(
  `\n  A2A edge harness\n  ${banner}\n  ${authLine}\n${sessionAdminKey ? `  admin key for this session: Authorization: Bearer ${sessionAdminKey}\n` : ""}  console: http://${ip}:${port}/console\n  agents: http://${ip}:${port}/agents   default agent card: http://${ip}:${port}/.well-known/agent-card.json\n`,
);

const child = spawn(
  wrangler,
  [
    "dev",
    // GET /__scheduled?cron=... runs the cron handler (SCHEDULES, the retention sweep) on demand.
    "--test-scheduled",
    "--var",
    "SCRIPTED_MODEL:auto",
    "--var",
    "ALLOW_ANONYMOUS:true",
    // Local runs (tests, benchmarks) send far more than a stranger on the internet may.
    "--var",
    "RATE_ANONYMOUS_PER_MINUTE:0",
    ...(sessionAdminKey ? ["--var", `ADMIN_API_KEY:${sessionAdminKey}`] : []),
    ...args,
  ],
  {
    cwd: root,
    stdio: "inherit",
  },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

/** Once the server answers, reports each remote A2A agent's reachability (GET /health/deep). */
async function startupCheck(): Promise<void> {
  const base = `http://${ip}:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      const response = await fetch(`${base}/health/deep`, {
        headers: sessionAdminKey ? { Authorization: `Bearer ${sessionAdminKey}` } : {},
      });
      if (response.status === 401 || response.status === 403) return;
      const body = (await response.json()) as {
        ok: boolean;
        agents: Array<{ name: string; reachable: boolean; distributed: boolean; error?: string }>;
      };
      if (body.agents.length === 0) return;
      console.log(
        `\n  remote A2A agents (${body.ok ? "ok" : "a distributed agent is unreachable"}):`,
      );
      for (const a of body.agents)
        console.log(
          `    ${a.reachable ? "reachable  " : "UNREACHABLE"} ${a.name}${a.distributed ? " (distributed sub-agent)" : ""}${a.error ? `: ${a.error}` : ""}`,
        );
      console.log("");
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
void startupCheck();
