/**
 * `npm run deploy` (scripts/deploy.ts) end to end against a fake Cloudflare API on 127.0.0.1
 * (test/fake-cloudflare; wrangler reads CLOUDFLARE_API_BASE_URL): on a fresh account one command
 * creates the D1 database and the R2 bucket (wrangler's own provisioning, no ids in
 * wrangler.toml), uploads the Worker with its key, migrates, makes a first admin and prints its
 * token and the URL; a second deploy (Workers Paid) migrates first and creates nothing again; no
 * temporary file survives it, whether it succeeds, fails or is interrupted (SIGINT mid-upload:
 * the key's secrets file, 0600 while it lives, is gone and wrangler stopped). And the
 * configurations it derives per plan (scripts/deploy-config.ts).
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Unstable_RawConfig as RawConfig } from "wrangler";
import { deployConfig, SCHEDULES_CRON, scheduleCount } from "../../scripts/deploy-config.ts";
import { type FakeCloudflare, startFakeCloudflare } from "../fake-cloudflare/server.ts";
import { ROOT, startNode, tempDir } from "./processes.ts";

let fake: FakeCloudflare;
/** The TMPDIR of the deploys: what deploy.ts leaves there is checked. */
const scratch = tempDir("a2a-deploy-test-");
const leftovers = () => readdirSync(scratch).filter((name) => name.startsWith("a2a-deploy-"));

/** Starts `npm run deploy` against the fake; `done` resolves with its exit code and output. */
function startDeploy(args: string[], env: Record<string, string> = {}) {
  const { child, output, done } = startNode("scripts/deploy.ts", args, {
    env: {
      CLOUDFLARE_API_BASE_URL: fake.url,
      CLOUDFLARE_API_TOKEN: "fake-token",
      CLOUDFLARE_ACCOUNT_ID: fake.accountId,
      WRANGLER_SEND_METRICS: "false",
      ANTHROPIC_API_KEY: "",
      TMPDIR: scratch,
      ...env,
    },
    stdin: "ignore",
  });
  return { child, done: done.then(({ code }) => ({ code, out: output.all() })) };
}

const deploy = (args: string[], env: Record<string, string> = {}) => startDeploy(args, env).done;

/** Holds the next upload of the Worker's script. */
const holdUpload = () =>
  fake.hold((method, path) => method === "PUT" && /scripts\/a2a-edge-harness\?/.test(path));

const script = () => fake.account.scripts.get("a2a-edge-harness");
const bindingTypes = () =>
  ((script()?.metadata.bindings ?? []) as Array<{ type: string }>).map((b) => b.type);
const rows = (sql: string) => {
  const db = [...fake.account.databases.values()][0]?.db;
  return db?.prepare(sql).all() ?? [];
};

beforeAll(async () => {
  fake = await startFakeCloudflare();
});

afterAll(async () => {
  await fake?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("npm run deploy: its command line, the login, the dry run", { timeout: 300_000 }, () => {
  it("--help prints the usage on stdout (exit 0); a wrong option one line and the usage (exit 2)", async () => {
    const help = await deploy(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: npm run deploy \[-- options\]\n/);
    expect(help.out).toContain("--dry-run");
    for (const [args, line] of [
      [["--frob"], "unknown option --frob"],
      [["--plan", "pro"], '--plan is free or paid, not "pro"'],
      [["--plan"], "--plan needs a value"],
    ] as const) {
      const run = await deploy([...args]);
      expect(run.code).toBe(2);
      expect(run.out).toMatch(
        new RegExp(
          `^deploy: ${line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n\nusage: npm run deploy`,
        ),
      );
      expect(run.out).not.toMatch(/ERR_PARSE_ARGS|at parseArgs/);
    }
  });

  it("not logged in: says so and how to log in, before building or asking for the key", async () => {
    const home = tempDir("a2a-deploy-home-");
    try {
      const before = fake.calls.length;
      // No token and a home without wrangler's OAuth login: nothing to authenticate with.
      const run = await deploy([], {
        CLOUDFLARE_API_TOKEN: "",
        CLOUDFLARE_API_KEY: "",
        CLOUDFLARE_EMAIL: "",
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
      });
      expect(run.code).toBe(1);
      expect(run.out).toBe(
        "deploy: not logged in to Cloudflare: run npx wrangler login (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID), then npm run deploy again\n",
      );
      expect(fake.calls.length).toBe(before);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("--dry-run: builds the plan's bundle and prints its figures; uploads nothing, needs no login", async () => {
    const before = fake.calls.length;
    const run = await deploy(["--dry-run", "--plan", "paid"], { CLOUDFLARE_API_TOKEN: "" });
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/^paid +\d+ KiB gzipped, \d+ of \d+ variables; /m);
    expect(run.out).toContain(
      "dry run: dist/deploy/paid/wrangler.json and its bundle built; nothing was uploaded (npm run deploy -- --plan paid deploys it)\n",
    );
    expect(fake.calls.slice(before).filter((c) => c.method !== "GET")).toEqual([]);
    expect(fake.account.scripts.size).toBe(0);
  });
});

// Each deploy runs wrangler several times (about 40 s alone on two busy cores): generous limits.
describe("npm run deploy on a fresh account", { timeout: 300_000 }, () => {
  it("without a key and without a terminal: says how to give it, creates nothing", async () => {
    const run = await deploy([]);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      "deploy: the Worker has no ANTHROPIC_API_KEY yet: run npm run deploy in a terminal (it asks for it), or with ANTHROPIC_API_KEY set in the environment",
    );
    expect(fake.account.scripts.size + fake.account.databases.size).toBe(0);
    expect(leftovers()).toEqual([]);
  });

  it("one command: creates D1 and R2, uploads with the key, migrates, makes an admin", async () => {
    const run = await deploy([], { ANTHROPIC_API_KEY: "sk-ant-test" });
    expect(run.code, run.out).toBe(0);
    expect([...fake.account.databases.values()].map((d) => d.name)).toEqual(["a2a-harness"]);
    expect([...fake.account.buckets]).toEqual(["a2a-harness-files"]);
    expect(script()?.secrets.get("ANTHROPIC_API_KEY")).toBe("sk-ant-test");
    // Workers Free: no Worker Loader, no every-minute cron (SCHEDULES is empty).
    expect(bindingTypes()).not.toContain("worker_loader");
    // The console's script and stylesheet go as static assets, hashed.
    const assets = fake.account.assets.get("a2a-edge-harness") ?? [];
    expect(
      assets.filter((path) => /^\/console\/[0-9a-f]+\/console\.(js|css)$/.test(path)),
    ).toHaveLength(2);
    expect(bindingTypes()).toEqual(
      expect.arrayContaining(["d1", "r2_bucket", "durable_object_namespace"]),
    );
    expect(script()?.crons).toEqual(["23 3 * * *"]);
    expect(rows("SELECT name FROM d1_migrations ORDER BY id").length).toBe(
      readdirSync(join(ROOT, "migrations")).filter((f) => f.endsWith(".sql")).length,
    );
    expect(rows("SELECT id, role FROM users")).toEqual([{ id: "admin", role: "admin" }]);
    expect(run.out).toMatch(/token for admin \(shown once, store it now\):\n\n {2}a2a_\S+/);
    expect(run.out).toContain("deployed: https://a2a-edge-harness.fake-sub.workers.dev\n");
    expect(run.out).not.toContain("About to apply");
    expect(leftovers()).toEqual([]);
  });

  it("a second deploy, on Workers Paid: migrations first, run_code on, nothing created twice", async () => {
    const before = fake.calls.length;
    const run = await deploy(["--plan", "paid"]);
    expect(run.code, run.out).toBe(0);
    const calls = fake.calls.slice(before);
    const firstQuery = calls.findIndex((c) => c.path.endsWith("/query"));
    const upload = calls.findIndex(
      (c) => c.method === "PUT" && /scripts\/a2a-edge-harness\?/.test(c.path),
    );
    expect(firstQuery).toBeGreaterThanOrEqual(0);
    expect(firstQuery).toBeLessThan(upload);
    expect(
      calls.filter((c) => c.method === "POST" && /\/(d1\/database|r2\/buckets)$/.test(c.path)),
    ).toEqual([]);
    expect(bindingTypes()).toContain("worker_loader");
    expect(script()?.uploads).toBe(2);
    expect(rows("SELECT id FROM users").length).toBe(1);
    expect(run.out).toContain("Workers Paid: run_code: on");
    expect(leftovers()).toEqual([]);
  });
});

describe("npm run deploy leaves nothing behind", { timeout: 300_000 }, () => {
  it("Ctrl-C mid-upload: the key's file (0600 while it lived) is gone, wrangler stopped", async () => {
    const upload = holdUpload();
    const run = startDeploy([], { ANTHROPIC_API_KEY: "sk-ant-interrupted" });
    await upload.reached;
    const during = leftovers();
    const secrets = during
      .map((dir) => join(scratch, dir, "secrets.json"))
      .find((file) => existsSync(file));
    expect(secrets).toBeDefined();
    expect(statSync(secrets as string).mode & 0o777).toBe(0o600);
    expect(readFileSync(secrets as string, "utf8")).toContain("sk-ant-interrupted");
    expect(during.some((dir) => dir.startsWith("a2a-deploy-out-"))).toBe(true);
    run.child.kill("SIGINT");
    const { code, out } = await run.done;
    expect(code, out).toBe(130);
    expect(out).toContain("stopped (SIGINT); temporary files removed");
    expect(leftovers()).toEqual([]);
    // The held upload's connection closes: wrangler did not go on alone.
    await upload.closed;
    upload.release();
  });

  it("a failed upload: exit 1, and no temporary file either", async () => {
    const upload = holdUpload();
    const run = startDeploy([], { ANTHROPIC_API_KEY: "sk-ant-failing" });
    await upload.reached;
    upload.release({
      status: 400,
      body: { success: false, errors: [{ code: 10021, message: "fake: refused" }], result: null },
    });
    const { code, out } = await run.done;
    expect(code, out).toBe(1);
    expect(out).toContain("deploy: wrangler deploy failed (above)");
    expect(leftovers()).toEqual([]);
  });
});

describe("the configuration deployed per plan", () => {
  const raw = {
    name: "w",
    main: "src/worker.ts",
    assets: { directory: "dist/assets" },
    vars: { SCHEDULES: "{}" },
    worker_loaders: [{ binding: "LOADER" }],
    triggers: { crons: ["23 3 * * *"] },
    d1_databases: [{ binding: "DB", database_name: "db", migrations_dir: "migrations" }],
  } as RawConfig;

  it("Free drops the Worker Loader and says so; Paid keeps it; paths stay right from dist/", () => {
    const free = deployConfig(raw, "free", "dist/deploy/free");
    expect(free.config.worker_loaders).toBeUndefined();
    expect(free.notes[0]).toMatch(/^run_code: off \(Dynamic Workers need Workers Paid/);
    expect(free.config.main).toBe("../../../src/worker.ts");
    expect(free.config.assets?.directory).toBe("../../../dist/assets");
    expect(free.config.d1_databases?.[0]?.migrations_dir).toBe("../../../migrations");
    expect(deployConfig(raw, "paid", "dist/deploy/paid").config.worker_loaders).toEqual([
      { binding: "LOADER" },
    ]);
    expect(raw.main).toBe("src/worker.ts");
  });

  it("leaves out the vars whose values are the code's defaults (Workers Free allows 64)", () => {
    const withVars = {
      ...raw,
      vars: { MAX_TURNS: "500", RETENTION_DAYS: "7", ALLOW_ANONYMOUS: "false", A2A_AGENTS: "{}" },
    } as RawConfig;
    const { config, notes } = deployConfig(withVars, "free", "d");
    expect(config.vars).toEqual({ RETENTION_DAYS: "7", A2A_AGENTS: "{}" });
    expect(notes).toContain("2 vars left out: their values are the defaults");
  });

  it("refuses a config that turns the fault injector on (--check, --dry-run and a deploy alike)", () => {
    const faulty = { ...raw, vars: { FAULTS: "users.reserve:error:0.3" } } as RawConfig;
    for (const plan of ["free", "paid"] as const)
      expect(() => deployConfig(faulty, plan, "d")).toThrow(
        /^FAULTS is set \("users\.reserve:error:0\.3"\): the fault injector is for dev and tests only/,
      );
    const off = { ...raw, vars: { FAULTS: "" } } as RawConfig;
    expect(deployConfig(off, "free", "d").config.vars?.FAULTS).toBeUndefined();
  });

  it("refuses a config that turns the scripted model on (the deployed bundle leaves it out)", () => {
    for (const mode of ["on", "auto"]) {
      const scripted = { ...raw, vars: { SCRIPTED_MODEL: mode } } as RawConfig;
      expect(() => deployConfig(scripted, "free", "d")).toThrow(
        new RegExp(
          `^SCRIPTED_MODEL is "${mode}": the scripted model is for npm run dev and tests only`,
        ),
      );
    }
    const off = { ...raw, vars: { SCRIPTED_MODEL: "off" } } as RawConfig;
    expect(() => deployConfig(off, "free", "d")).not.toThrow();
  });

  it("adds the every-minute cron only when SCHEDULES has entries", () => {
    expect(deployConfig(raw, "free", "d").config.triggers?.crons).toEqual(["23 3 * * *"]);
    const scheduled = { ...raw, vars: { SCHEDULES: '{"a":{},"b":{}}' } } as RawConfig;
    const { config, notes } = deployConfig(scheduled, "free", "d");
    expect(config.triggers?.crons).toEqual(["23 3 * * *", SCHEDULES_CRON]);
    expect(notes).toContain(
      "schedules: 2, run by an every-minute cron (1,440 invocations a day, each a Worker request)",
    );
    expect(scheduleCount("not json")).toBe(0);
  });
});
