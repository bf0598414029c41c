/**
 * `npm run deploy [-- --plan free|paid]`: from a Cloudflare account wrangler is logged into to a
 * working endpoint, in one command. It bundles the agents and the console, writes the
 * configuration for the plan (scripts/deploy-config.ts) and the Worker's bundle
 * (scripts/bundle-worker.ts) to dist/deploy/, asks for the
 * ANTHROPIC_API_KEY when the Worker does not have it yet (or takes it from the environment),
 * applies the D1 migrations and deploys (wrangler creates the D1 database and the R2 bucket the
 * first time, by their names in wrangler.toml; on later deploys the migrations go first), makes a
 * first admin and prints its token when the deployment has no user, and prints the URL. Its
 * temporary files (the key's secrets file, 0600; wrangler's output file) are removed however
 * it ends, Ctrl-C included, and an interrupted wrangler is stopped too (scripts/cleanup.ts).
 *
 * Credentials are checked first (`wrangler whoami`): without a login it stops before building or
 * asking anything. `--dry-run` builds the plan's configuration and bundle and prints its figures,
 * uploading nothing and needing no login; `--help` prints the usage, a wrong command line one
 * line and the usage (exit 2).
 *
 * `--check` builds every supported configuration (both plans, with and without schedules) with
 * `wrangler deploy --dry-run` into dist/check/ and holds each to its plan's limits (variables,
 * compressed size); `npm test` runs it. Nothing is uploaded.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { Unstable_RawConfig as RawConfig } from "wrangler";
import { bundleWorker } from "./bundle-worker.ts";
import { removeTemporary, temporaryDir, trackChild } from "./cleanup.ts";
import { DEPLOY_USAGE, deployArgs } from "./deploy-args.ts";
import { deployConfig, PLANS, type PlanName } from "./deploy-config.ts";
import { askHidden } from "./prompt.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const KEY = "ANTHROPIC_API_KEY";

const values = deployArgs(process.argv.slice(2));

/** Runs a command in the project; resolves with its exit code and, if captured, its output. */
function run(
  command: string,
  args: string[],
  options: { capture?: boolean; env?: Record<string, string>; stdin?: "ignore" } = {},
): Promise<{ code: number; stdout: string }> {
  const spawnOptions: SpawnOptions = {
    cwd: root,
    env: { ...process.env, ...options.env },
    stdio: options.capture
      ? ["ignore", "pipe", "pipe"]
      : [options.stdin ?? "inherit", "inherit", "inherit"],
  };
  return new Promise((resolve) => {
    const child = spawn(command, args, spawnOptions);
    trackChild(child);
    let stdout = "";
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.resume();
    child.once("exit", (code) => resolve({ code: code ?? 1, stdout }));
  });
}

async function must(command: string, args: string[], what: string): Promise<void> {
  if ((await run(command, args)).code !== 0) throw new Error(`${what} failed (above)`);
}

/** Applies the D1 migrations remotely: no question asked, only warnings and errors printed. */
async function migrate(): Promise<void> {
  const applied = await run(wrangler, ["d1", "migrations", "apply", "DB", "--remote"], {
    env: { WRANGLER_LOG: "warn" },
    stdin: "ignore",
  });
  if (applied.code !== 0) throw new Error("the D1 migrations failed (above)");
  console.log("D1 migrations applied");
}

/** wrangler's JSON output of a command (a question asked quietly), or null when it fails. */
async function wranglerJson<T>(args: string[]): Promise<T | null> {
  const { code, stdout } = await run(wrangler, args, { capture: true });
  try {
    return code === 0 ? (JSON.parse(stdout) as T) : null;
  } catch {
    return null;
  }
}

async function rawConfig(): Promise<RawConfig> {
  const { experimental_readRawConfig } = await import("wrangler");
  return experimental_readRawConfig({ config: join(root, "wrangler.toml") }).rawConfig;
}

/**
 * Where a configuration is built: `dist/deploy/<name>` for a deploy or a dry run, `dist/check/<name>`
 * for `--check` (which `npm test` runs beside the e2e suite's dry runs: never the same files).
 */
type BuildDir = "deploy" | "check";

/**
 * Writes the plan's configuration to dist/<into>/<name>/wrangler.json, its Worker bundled beside
 * it (scripts/bundle-worker.ts); returns the configuration's path.
 */
async function writeConfig(
  raw: RawConfig,
  plan: PlanName,
  name: string,
  into: BuildDir,
): Promise<{ path: string; notes: string[]; config: RawConfig }> {
  const dir = `dist/${into}/${name}`;
  const { config, notes } = deployConfig(raw, plan, dir);
  mkdirSync(join(root, dir), { recursive: true });
  config.main = await bundleWorker(root, join(root, dir), raw.alias);
  // The aliases are applied already; wrangler would resolve their paths from dist/deploy/.
  delete config.alias;
  const path = join(root, dir, "wrangler.json");
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return { path, notes, config };
}

/** Secret names the Worker may have: the required ones and those typed in src/secrets.d.ts. */
function secretNames(raw: RawConfig): string[] {
  const typed = readFileSync(join(root, "src", "secrets.d.ts"), "utf8");
  const optional = [...typed.matchAll(/^\s+([A-Z][A-Z0-9_]*)\?: string;/gm)].map((m) => m[1]);
  return [...new Set([...(raw.secrets?.required ?? []), ...optional])] as string[];
}

/** `wrangler deploy --dry-run` of one configuration; prints its figures, returns what is wrong. */
async function checkOne(
  raw: RawConfig,
  plan: PlanName,
  name: string,
  into: BuildDir,
): Promise<string[]> {
  const { path, notes, config } = await writeConfig(raw, plan, name, into);
  const out = join(root, "dist", into, name, "bundle");
  rmSync(out, { recursive: true, force: true });
  const built = await run(wrangler, ["deploy", "--dry-run", "--config", path, "--outdir", out], {
    env: { WRANGLER_LOG: "warn", WRANGLER_SEND_METRICS: "false" },
  });
  if (built.code !== 0) return [`${name}: wrangler deploy --dry-run failed (above)`];
  const gzip = readdirSync(out)
    .filter((f) => f.endsWith(".js"))
    .reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0);
  const variables = Object.keys(config.vars ?? {}).length + secretNames(raw).length;
  const limits = PLANS[plan];
  console.log(
    `${name.padEnd(15)} ${(gzip / 1024).toFixed(0)} KiB gzipped, ${variables} of ${limits.maxVariables} variables; ${notes.join("; ")}`,
  );
  return [
    ...(gzip > limits.maxGzipBytes
      ? [`${name}: ${gzip} bytes gzipped, over ${limits.label}'s ${limits.maxGzipBytes}`]
      : []),
    ...(variables > limits.maxVariables
      ? [`${name}: ${variables} vars and secrets, over ${limits.label}'s ${limits.maxVariables}`]
      : []),
  ];
}

/** Every supported configuration (each plan, with and without schedules), dry-run and checked. */
async function check(): Promise<void> {
  const raw = await rawConfig();
  const withSchedules = {
    ...raw,
    vars: {
      ...raw.vars,
      SCHEDULES: JSON.stringify({
        check: { cron: "0 9 * * 1", agent: "writer", owner: "ops", prompt: "Weekly digest" },
      }),
    },
  };
  const failures: string[] = [];
  for (const plan of Object.keys(PLANS) as PlanName[]) {
    failures.push(...(await checkOne(raw, plan, plan, "check")));
    failures.push(...(await checkOne(withSchedules, plan, `${plan}-schedules`, "check")));
  }
  if (failures.length > 0) throw new Error(failures.join("\n"));
}

/** The key for the Worker: from the environment, or asked for when the Worker lacks it. */
async function secretsFile(configPath: string): Promise<string | null> {
  let key = process.env[KEY]?.trim();
  if (!key) {
    const listed = await wranglerJson<Array<{ name: string }>>([
      "secret",
      "list",
      "--format",
      "json",
      "--config",
      configPath,
    ]);
    if (listed?.some((s) => s.name === KEY)) return null;
    if (!process.stdin.isTTY)
      throw new Error(
        `the Worker has no ${KEY} yet: run npm run deploy in a terminal (it asks for it), or with ${KEY} set in the environment`,
      );
    key = (await askHidden(`${KEY} for the deployed Worker (input hidden): `)).trim();
    if (!key)
      throw new Error(
        `the Worker needs ${KEY}: run again and paste it, or set it in the environment`,
      );
  }
  const file = join(temporaryDir("a2a-deploy-"), "secrets.json");
  writeFileSync(file, JSON.stringify({ [KEY]: key }), { mode: 0o600 });
  return file;
}

/** Whether wrangler has Cloudflare credentials (a login or an API token) that work. */
async function loggedIn(): Promise<boolean> {
  const who = await wranglerJson<{ loggedIn?: boolean }>(["whoami", "--json"]);
  return who?.loggedIn === true;
}

/** `--dry-run`: the plan's configuration and bundle, built and measured; nothing uploaded. */
async function dryRun(planName: PlanName): Promise<void> {
  for (const script of ["build-agents.ts", "build-assets.ts"])
    await must(process.execPath, [join(root, "scripts", script)], script);
  const failures = await checkOne(await rawConfig(), planName, planName, "deploy");
  if (failures.length > 0) throw new Error(failures.join("\n"));
  console.log(
    `dry run: dist/deploy/${planName}/wrangler.json and its bundle built; nothing was uploaded (npm run deploy${planName === "free" ? "" : ` -- --plan ${planName}`} deploys it)`,
  );
}

async function deploy(planName: PlanName): Promise<void> {
  // First, before anything is built or asked: without credentials every later step fails.
  if (!(await loggedIn()))
    throw new Error(
      "not logged in to Cloudflare: run npx wrangler login (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID), then npm run deploy again",
    );
  for (const script of ["build-agents.ts", "build-assets.ts"])
    await must(process.execPath, [join(root, "scripts", script)], script);
  const raw = await rawConfig();
  const { path, notes } = await writeConfig(raw, planName, planName, "deploy");
  console.log(`${PLANS[planName].label}: ${notes.join("; ")}`);
  const secrets = await secretsFile(path);
  const dbName = raw.d1_databases?.[0]?.database_name ?? "";
  const exists = (await wranglerJson<{ uuid?: string }>(["d1", "info", dbName, "--json"]))?.uuid;
  const outputDir = temporaryDir("a2a-deploy-out-");
  const output = join(outputDir, "output.ndjson");
  try {
    // Migrations first when the database exists, so new code never meets an old schema.
    if (exists) await migrate();
    const deployed = await run(
      wrangler,
      ["deploy", "--config", path, ...(secrets ? ["--secrets-file", secrets] : [])],
      { env: { WRANGLER_OUTPUT_FILE_PATH: output } },
    );
    if (deployed.code !== 0) throw new Error("wrangler deploy failed (above)");
    if (!exists) await migrate();
  } finally {
    if (secrets) removeTemporary(dirname(secrets));
  }
  const url = readFileSync(output, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type?: string; targets?: string[] })
    .find((entry) => entry.type === "deploy")?.targets?.[0];
  removeTemporary(outputDir);
  const users = await wranglerJson<Array<{ results?: Array<{ n: number }> }>>([
    "d1",
    "execute",
    "DB",
    "--remote",
    "--json",
    "--command",
    "SELECT COUNT(*) AS n FROM users",
  ]);
  if (users?.[0]?.results?.[0]?.n === 0)
    await must(
      process.execPath,
      [join(root, "scripts", "users.ts"), "add", "admin", "--role", "admin", "--remote"],
      "making the first admin",
    );
  const base = url ?? "https://<your worker's URL>";
  console.log(
    `\ndeployed: ${base}\n  agents:  ${base}/agents\n  console: ${base}/console\n  try:     npm run a2a -- chat assistant --url ${base} --token <token>\n` +
      "  users:   npm run users -- add <id> --remote (a token for each caller; anonymous callers are refused)",
  );
}

const plan = values.plan as PlanName;
if (values.help) {
  process.stdout.write(DEPLOY_USAGE);
  process.exit(0);
}
(values.check ? check() : values["dry-run"] ? dryRun(plan) : deploy(plan)).catch(
  (error: unknown) => {
    console.error(`deploy: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
