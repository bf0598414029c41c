/**
 * What `npm run dev` hands `wrangler dev` and tells the developer. Reads `.dev.vars` and `.env`
 * (nothing else), never prints and never starts anything.
 *
 * wrangler 4.124 with `secrets.required` in wrangler.toml loads only the required secrets
 * (ANTHROPIC_API_KEY) from `.dev.vars`, or, when there is no `.dev.vars`, from `.env`,
 * `.env.local` and the environment, and warns when one is missing. This module finds the key
 * the same way (plus `--var ANTHROPIC_API_KEY:...`) and, when wrangler would not see it, hands
 * wrangler the resolved value, or an explicit empty one for a keyless start, through the
 * environment, so the warning never contradicts the scripted model the banner announces. The
 * secrets and vars the agents grant their tools in code (`tools.secrets`) are not loaded either:
 * those set in the same files are handed over as `--var` ({@link toolSecretVars}).
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { modelTypoWarning } from "../src/agents/models.ts";
import { checkAgent, readAgentFolders, readSharedFolder } from "./agent-sources.ts";

const KEY = "ANTHROPIC_API_KEY";

/** The value of `name` in a dotenv file, or undefined. */
function fileValue(path: string, name: string): string | undefined {
  if (!existsSync(path)) return undefined;
  return parseEnv(readFileSync(path, "utf8"))[name];
}

/** Every `--var NAME:value` of the arguments (`--var A:1 B:2` and `--var=A:1` too). */
export function cliVars(args: readonly string[]): Map<string, string> {
  const vars = new Map<string, string>();
  const add = (pair: string) => {
    const i = pair.indexOf(":");
    if (i > 0) vars.set(pair.slice(0, i), pair.slice(i + 1));
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith("--var=")) add(arg.slice(6));
    else if (arg === "--var")
      while (i + 1 < args.length && !(args[i + 1] as string).startsWith("-"))
        add(args[++i] as string);
  }
  return vars;
}

/** The value of a `--flag value` or `--flag=value` argument. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const arg = args[i] as string;
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[i + 1];
}

/** Where the Anthropic key comes from, if anywhere. */
export type KeySource = "--var" | ".dev.vars" | ".env" | "the environment";

/**
 * `npm run dev -- --deployed`: the deployed Worker's own settings (wrangler.toml's vars as
 * `npm run deploy` ships them) instead of the local profile's open ones.
 */
export const DEPLOYED_FLAG = "--deployed";

/**
 * What the local profile changes from the deployed settings, so a developer and the tests can call
 * it freely; `--deployed` leaves them all as deployed.
 */
const OPEN_PROFILE = [
  // Cron events: wrangler dev fires them for any local caller (/cdn-cgi/local/scheduled; with
  // --test-scheduled also /__scheduled), so they are ignored and POST /api/admin/cron (admin
  // key) runs the same work (docs/dev-loop.md).
  "--var",
  "CRON_TRIGGERS:false",
  "--var",
  "ALLOW_ANONYMOUS:true",
  // Local runs (tests, benchmarks) send far more than a stranger on the internet may.
  "--var",
  "RATE_ANONYMOUS_PER_MINUTE:0",
];

/** The resolved dev configuration. */
export interface DevPlan {
  /** Whether the server runs with the deployed settings (`--deployed`). */
  deployed: boolean;
  /** The plan whose limits the local limit guard enforces (`CF_PLAN`: free, paid or off). */
  cfPlan: string;
  keySource: KeySource | undefined;
  /** Environment for `wrangler dev` (added to the inherited one). */
  env: Record<string, string>;
  /** Arguments for `wrangler dev`, the developer's last. */
  args: string[];
  /** The admin key generated for this session, or null when `--var ADMIN_API_KEY:` gave one. */
  sessionAdminKey: string | null;
  authRequired: boolean;
  url: string;
  /** Optional secrets set in `.dev.vars`/`.env`, which wrangler does not load. */
  ignoredSecrets: string[];
  /** The warning for a `--var DEFAULT_MODEL:` that is likely a typo of a known model id, or null. */
  defaultModelWarning: string | null;
  /** What the agents' tools are granted and the files set, handed to wrangler as `--var`. */
  toolSecrets: { names: string[]; from: string };
  /** Whether wrangler logs only warnings and errors (the default). */
  quietLogs: boolean;
  /**
   * Whether A2A_AGENTS may name remote agents (then the banner reports their reachability from
   * GET /health/deep, which also opens a Durable Object: not done needlessly, as two servers may
   * share a state directory).
   */
  remoteAgents: boolean;
}

/** Optional secret names, as declared in src/secrets.d.ts (`NAME?: string;`). */
function optionalSecrets(root: string): string[] {
  const text = readFileSync(join(root, "src", "secrets.d.ts"), "utf8");
  return [...text.matchAll(/^\s+([A-Z][A-Z0-9_]*)\?: string;/gm)].map((m) => m[1] as string);
}

/** Every name the valid agents under `root` grant their tools in code (`tools.secrets`). */
function grantedSecrets(root: string): string[] {
  const shared = readSharedFolder(root);
  const names = readAgentFolders(root).flatMap((folder) => {
    try {
      return checkAgent(folder, shared).tools.secrets;
    } catch {
      return []; // an invalid agent is not served: the build reports it
    }
  });
  return [...new Set(names)].sort();
}

/**
 * The secrets and vars the agents grant their tools that `.dev.vars` sets (without one: `.env`,
 * `.env.local`, the environment) and no `--var` gives: wrangler dev loads none of them, so they
 * go to it as `--var NAME:value`.
 */
export function toolSecretVars(
  root: string,
  args: readonly string[],
  environment: NodeJS.ProcessEnv,
): { args: string[]; names: string[]; from: string } {
  const vars = cliVars(args);
  const devVars = join(root, ".dev.vars");
  const hasDevVars = existsSync(devVars);
  const dotenv = [".env", ".env.local"].map((f) => join(root, f));
  const setValue = (name: string) =>
    hasDevVars
      ? fileValue(devVars, name)
      : (dotenv.map((f) => fileValue(f, name)).findLast((v) => v !== undefined) ??
        environment[name]);
  const found = grantedSecrets(root).flatMap((name) => {
    const value = vars.has(name) ? undefined : setValue(name);
    return value === undefined ? [] : [[name, value] as const];
  });
  return {
    args: found.flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    names: found.map(([name]) => name),
    from: hasDevVars ? ".dev.vars" : ".env or the environment",
  };
}

/** Plans a `wrangler dev` run for the project at `root` with the developer's `args`. */
export function planDev(
  root: string,
  given: readonly string[],
  environment: NodeJS.ProcessEnv,
): DevPlan {
  const deployed = given.includes(DEPLOYED_FLAG);
  const args = given.filter((a) => a !== DEPLOYED_FLAG);
  const vars = cliVars(args);
  const devVars = join(root, ".dev.vars");
  const hasDevVars = existsSync(devVars);
  const dotenv = [".env", ".env.local"].map((f) => join(root, f));
  const fromDotenv = dotenv.map((f) => fileValue(f, KEY)).findLast((v) => v);
  const found: Array<[KeySource, string | undefined]> = [
    ["--var", vars.get(KEY)],
    [".dev.vars", hasDevVars ? fileValue(devVars, KEY) : undefined],
    [".env", hasDevVars ? undefined : fromDotenv],
    ["the environment", hasDevVars ? undefined : environment[KEY]],
  ];
  const [keySource, key] = found.find(([, v]) => v?.trim()) ?? [undefined, undefined];

  const env: Record<string, string> = {
    // Warnings and errors only: wrangler's banner, bindings table and request lines are not
    // news to anyone (`--log-level info` or WRANGLER_LOG brings them back).
    WRANGLER_LOG: environment.WRANGLER_LOG ?? "warn",
    WRANGLER_HIDE_BANNER: "true",
    // No lookup of the real Request.cf on every start: the harness does not read it.
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
  };
  const extra: string[] = [];
  if (keySource === undefined || keySource === "--var") {
    env[KEY] = key ?? "";
    // With a .dev.vars, wrangler reads secrets from it alone; --env-file makes it read the
    // environment as well (the file is still loaded).
    if (hasDevVars && flagValue(args, "--env-file") === undefined)
      extra.push("--env-file", devVars);
  }

  const sessionAdminKey = vars.has("ADMIN_API_KEY") ? null : `dev-admin-${randomUUID()}`;
  const authRequired = deployed || /^(true|1|yes|on)$/i.test(vars.get("AUTH_REQUIRED") ?? "");
  const ignoredSecrets = optionalSecrets(root).filter(
    (name) =>
      !vars.has(name) &&
      (hasDevVars ? [devVars] : dotenv).some((file) => fileValue(file, name)?.trim()),
  );
  const configured = (value: string | undefined) => !/^\s*(\{\s*\})?\s*$/.test(value ?? "");
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const remoteAgents =
    configured(vars.get("A2A_AGENTS")) ||
    (hasDevVars ? [devVars] : dotenv).some((file) => configured(fileValue(file, "A2A_AGENTS"))) ||
    (!hasDevVars && configured(environment.A2A_AGENTS)) ||
    !/^A2A_AGENTS = "\{\}"$/m.test(toml);
  const port = flagValue(args, "--port") ?? "8787";
  const ip = flagValue(args, "--ip") ?? "127.0.0.1";
  const toolSecrets = toolSecretVars(root, args, environment);
  return {
    deployed,
    cfPlan: (vars.get("CF_PLAN") ?? "paid").trim().toLowerCase() || "off",
    keySource,
    env,
    args: [
      "dev",
      "--show-interactive-dev-session=false",
      ...(deployed ? [] : OPEN_PROFILE),
      // Without a key, the scripted model stands in for Claude (deployed, tasks would fail).
      "--var",
      "SCRIPTED_MODEL:auto",
      // Cloudflare's limits, enforced locally (src/platform/limit-guard.ts); --var CF_PLAN:free
      // holds the server to Workers Free's.
      "--var",
      "CF_PLAN:paid",
      ...(sessionAdminKey ? ["--var", `ADMIN_API_KEY:${sessionAdminKey}`] : []),
      ...toolSecrets.args,
      ...extra,
      ...args,
    ],
    sessionAdminKey,
    authRequired,
    url: `http://${ip.includes(":") ? `[${ip}]` : ip}:${port}`,
    ignoredSecrets,
    defaultModelWarning: modelTypoWarning(vars.get("DEFAULT_MODEL") ?? ""),
    toolSecrets: { names: toolSecrets.names, from: toolSecrets.from },
    quietLogs:
      environment.WRANGLER_LOG === undefined && flagValue(args, "--log-level") === undefined,
    remoteAgents,
  };
}

/** What the running server told `npm run dev` about itself (null where it did not answer). */
export interface ServerFacts {
  agents: { defaultAgent: string; names: string[] } | null;
  remote: Array<{ name: string; reachable: boolean; distributed: boolean; error?: string }>;
}

/** The banner: printed once the server answers, and the last thing before the first request. */
export function banner(plan: DevPlan, facts: ServerFacts): string {
  const row = (label: string, text: string) => `  ${label.padEnd(8)} ${text}`;
  const model =
    plan.keySource === undefined
      ? `SCRIPTED LOCAL MODEL, not Claude (no ${KEY}): put ${KEY}=sk-ant-... in .dev.vars to talk to Claude`
      : `Claude via the Anthropic API (${KEY} from ${plan.keySource})`;
  const auth = plan.deployed
    ? "closed, as deployed (--deployed; rate limits, budgets and cron events too): send Authorization: Bearer <token> (npm run users -- add <id>)"
    : plan.authRequired
      ? "REQUIRED (AUTH_REQUIRED=true): send Authorization: Bearer <token> (npm run users -- add <id>)"
      : "open for local use (ALLOW_ANONYMOUS=true); --var AUTH_REQUIRED:true closes it, --deployed runs as deployed";
  const limits =
    plan.cfPlan === "free" || plan.cfPlan === "paid"
      ? `Cloudflare's Workers ${plan.cfPlan === "free" ? "Free" : "Paid"} limits enforced (CF_PLAN=${plan.cfPlan})${plan.cfPlan === "paid" ? "; --var CF_PLAN:free for Free's" : ""}`
      : "Cloudflare's limits NOT enforced (CF_PLAN=off)";
  const first = facts.agents?.defaultAgent ?? "assistant";
  const urlFlag = plan.url === "http://127.0.0.1:8787" ? "" : ` --url ${plan.url}`;
  // Closed, the CLI needs a token: the session's admin key (or the one --var gave).
  const tokenFlag = plan.authRequired
    ? ` --token ${plan.sessionAdminKey ?? "<the key of --var ADMIN_API_KEY>"}`
    : "";
  const lines = [
    "",
    `  A2A edge harness: ${plan.url}`,
    row("model", model),
    row("auth", auth),
    row("limits", limits),
    row(
      "admin",
      plan.sessionAdminKey
        ? `Authorization: Bearer ${plan.sessionAdminKey} (this session only)`
        : "the key of --var ADMIN_API_KEY",
    ),
  ];
  if (facts.agents)
    lines.push(
      row("agents", facts.agents.names.map((n) => (n === first ? `${n} (default)` : n)).join(", ")),
    );
  if (plan.toolSecrets.names.length > 0)
    lines.push(
      row(
        "tools",
        `${plan.toolSecrets.names.join(", ")} from ${plan.toolSecrets.from} (tools.secrets)`,
      ),
    );
  lines.push(
    row("console", `${plan.url}/console`),
    row("try", `npm run a2a -- chat ${first}${urlFlag}${tokenFlag}`),
  );
  if (plan.quietLogs)
    lines.push(
      row("logs", "warnings and errors; npm run dev -- --log-level info shows every request"),
    );
  for (const a of facts.remote)
    lines.push(
      row(
        "remote",
        `${a.name}${a.distributed ? " (distributed sub-agent)" : ""}: ${a.reachable ? "reachable" : `UNREACHABLE${a.error ? `: ${a.error}` : ""}`}`,
      ),
    );
  if (plan.defaultModelWarning)
    lines.push(row("note", `DEFAULT_MODEL: ${plan.defaultModelWarning}`));
  for (const name of plan.ignoredSecrets)
    lines.push(
      row("note", `${name} is set in a dotenv file, which wrangler dev does not load for it`),
      row("", `(only secrets.required are loaded): pass --var ${name}:<value> instead`),
    );
  lines.push("  Ctrl-C stops it", "");
  return lines.join("\n");
}
