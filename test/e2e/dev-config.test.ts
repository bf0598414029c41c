/**
 * What `npm run dev` hands wrangler (scripts/dev-config.ts), in Node without a server: where the
 * key is found (wrangler's own order), the explicit empty key of a keyless start (so wrangler's
 * "Missing required secrets" warning never appears), the session admin key, optional secrets
 * that wrangler would silently drop, the card signing key set locally as docs/protocol.md says
 * (kept outside the checkout, reaching wrangler as a --var), the secrets the agents grant their
 * tools handed over from .dev.vars, and the banner.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { banner, cliVars, planDev } from "../../scripts/dev-config.ts";
import { ROOT, tempDir } from "./processes.ts";

/** A project directory with the given dotenv files. */
function project(files: Record<string, string> = {}): string {
  const dir = tempDir("a2a-devcfg-");
  mkdirSync(join(dir, "src"));
  copyFileSync(join(ROOT, "src", "secrets.d.ts"), join(dir, "src", "secrets.d.ts"));
  copyFileSync(join(ROOT, "wrangler.toml"), join(dir, "wrangler.toml"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("planDev", () => {
  it("keyless without .dev.vars: an explicit empty key in wrangler's environment", () => {
    const plan = planDev(project(), [], {});
    expect(plan.keySource).toBeUndefined();
    expect(plan.env).toMatchObject({
      ANTHROPIC_API_KEY: "",
      WRANGLER_LOG: "warn",
      WRANGLER_HIDE_BANNER: "true",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
    });
    expect(plan.args).not.toContain("--env-file");
    expect(plan.args).toContain("--show-interactive-dev-session=false");
    // The cron runs through the admin route, never an unauthenticated local URL.
    expect(plan.args).not.toContain("--test-scheduled");
    expect(plan.args).toContain("CRON_TRIGGERS:false");
  });

  it("holds the server to Cloudflare's limits: Workers Paid's unless --var CF_PLAN says otherwise", () => {
    const plan = planDev(project(), [], {});
    expect(plan.args).toContain("CF_PLAN:paid");
    expect(banner(plan, { agents: null, remote: [] })).toContain(
      "limits   Cloudflare's Workers Paid limits enforced (CF_PLAN=paid)",
    );
    const free = planDev(project(), ["--var", "CF_PLAN:free"], {});
    // The developer's --var comes last, and wrangler takes the last.
    expect(free.args.lastIndexOf("CF_PLAN:free")).toBeGreaterThan(
      free.args.indexOf("CF_PLAN:paid"),
    );
    expect(banner(free, { agents: null, remote: [] })).toContain("Workers Free limits enforced");
  });

  it("--deployed: the deployed settings (closed; limits, budgets and cron events on), the guard on", () => {
    const local = planDev(project(), [], {});
    const plan = planDev(project(), ["--deployed", "--port", "9001"], {});
    expect(plan.deployed).toBe(true);
    expect(plan.args).not.toContain("--deployed");
    for (const open of [
      "CRON_TRIGGERS:false",
      "ALLOW_ANONYMOUS:true",
      "RATE_ANONYMOUS_PER_MINUTE:0",
    ]) {
      expect(local.args).toContain(open);
      expect(plan.args).not.toContain(open);
    }
    expect(plan.args).toContain("CF_PLAN:paid");
    expect(plan.args.slice(-2)).toEqual(["--port", "9001"]);
    expect(plan.authRequired).toBe(true);
    const text = banner(plan, { agents: null, remote: [] });
    expect(text).toContain("auth     closed, as deployed (--deployed");
    expect(text).toContain(`--token ${plan.sessionAdminKey}`);
  });

  it("keyless with a .dev.vars: wrangler also reads the environment (--env-file)", () => {
    const dir = project({ ".dev.vars": "DEFAULT_AGENT=writer\n" });
    const plan = planDev(dir, ["--port", "9000"], { ANTHROPIC_API_KEY: "ignored-by-wrangler" });
    expect(plan.keySource).toBeUndefined();
    expect(plan.env.ANTHROPIC_API_KEY).toBe("");
    expect(plan.args.slice(-4)).toEqual(["--env-file", join(dir, ".dev.vars"), "--port", "9000"]);
    expect(plan.url).toBe("http://127.0.0.1:9000");
  });

  it("finds the key where wrangler does: .dev.vars first, else .env and the environment", () => {
    expect(planDev(project({ ".dev.vars": "ANTHROPIC_API_KEY=sk-1\n" }), [], {}).keySource).toBe(
      ".dev.vars",
    );
    const fromEnvFile = planDev(project({ ".env": 'ANTHROPIC_API_KEY="sk-2"\n' }), [], {});
    expect(fromEnvFile.keySource).toBe(".env");
    expect(fromEnvFile.env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(planDev(project(), [], { ANTHROPIC_API_KEY: "sk-3" }).keySource).toBe("the environment");
    const cli = planDev(project(), ["--var", "ANTHROPIC_API_KEY:sk-4"], {});
    expect(cli.keySource).toBe("--var");
    expect(cli.env.ANTHROPIC_API_KEY).toBe("sk-4");
    expect(planDev(project({ ".dev.vars": "ANTHROPIC_API_KEY=\n" }), [], {}).keySource).toBe(
      undefined,
    );
  });

  it("makes a session admin key unless --var gives one; flags optional secrets wrangler drops", () => {
    const plan = planDev(
      project({ ".dev.vars": "ADMIN_API_KEY=mine\nDOCS_MCP_TOKEN=t\n" }),
      [],
      {},
    );
    expect(plan.sessionAdminKey).toMatch(/^dev-admin-/);
    expect(plan.args).toContain(`ADMIN_API_KEY:${plan.sessionAdminKey}`);
    expect(plan.ignoredSecrets).toEqual(["ADMIN_API_KEY", "DOCS_MCP_TOKEN"]);
    const given = planDev(project(), ["--var", "ADMIN_API_KEY:x", "AUTH_REQUIRED:true"], {});
    expect(given.sessionAdminKey).toBeNull();
    expect(given.authRequired).toBe(true);
    expect(given.ignoredSecrets).toEqual([]);
  });

  it("asks the server about remote agents only when A2A_AGENTS may name some", () => {
    expect(planDev(project(), [], {}).remoteAgents).toBe(false);
    expect(
      planDev(project(), ["--var", 'A2A_AGENTS:{"x":{"url":"http://a/"}}'], {}).remoteAgents,
    ).toBe(true);
    expect(planDev(project({ ".dev.vars": "A2A_AGENTS={}\n" }), [], {}).remoteAgents).toBe(false);
    expect(planDev(project(), [], { A2A_AGENTS: '{"x":{}}' }).remoteAgents).toBe(true);
  });

  it("parses --var lists as wrangler does", () => {
    expect([...cliVars(["--var", "A:1", "B:x:y", "--port", "1", "--var=C:"])]).toEqual([
      ["A", "1"],
      ["B", "x:y"],
      ["C", ""],
    ]);
  });
});

describe("the card signing key, as docs/protocol.md sets it", () => {
  const docs = readFileSync(join(ROOT, "docs", "protocol.md"), "utf8");
  const block = /\*\*Signed cards\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(docs)?.[1] ?? "";

  it("keeps the key file outside the checkout, and card-key.json is ignored by git anyway", () => {
    const written = [...block.matchAll(/ > (\S*card-key\S*?)\)?$/gm)].map((m) => m[1]);
    expect(written.length).toBeGreaterThan(0);
    for (const path of written) expect(path).toMatch(/^~\//);
    expect(block).not.toContain(".dev.vars");
    const ignored = spawnSync("git", ["check-ignore", "-q", "card-key.json"], { cwd: ROOT });
    expect(ignored.status).toBe(0);
  });

  it("reaches wrangler dev as the docs' --var; in .dev.vars it would be dropped (and flagged)", () => {
    const key = '{"kty":"EC","crv":"P-256","kid":"k","alg":"ES256","d":"x"}';
    const line = /^npm run dev -- --var "AGENT_CARD_SIGNING_KEY:\$\(cat (\S+)\)"$/m.exec(block);
    expect(line?.[1]).toMatch(/^~\//);
    const plan = planDev(project(), ["--var", `AGENT_CARD_SIGNING_KEY:${key}`], {});
    expect(plan.args).toContain(`AGENT_CARD_SIGNING_KEY:${key}`);
    expect(plan.ignoredSecrets).toEqual([]);
    const dotfile = planDev(project({ ".dev.vars": `AGENT_CARD_SIGNING_KEY=${key}\n` }), [], {});
    expect(dotfile.ignoredSecrets).toEqual(["AGENT_CARD_SIGNING_KEY"]);
  });
});

describe("banner", () => {
  it("names the model, auth, admin key, agents, console and how to talk to it", () => {
    const plan = planDev(project(), ["--port", "8790"], {});
    const text = banner(plan, {
      agents: { defaultAgent: "writer", names: ["assistant", "writer"] },
      remote: [{ name: "billing", reachable: false, distributed: false, error: "timeout" }],
    });
    expect(text).toContain("SCRIPTED LOCAL MODEL, not Claude");
    expect(text).toContain("agents   assistant, writer (default)");
    expect(text).toContain("try      npm run a2a -- chat writer --url http://127.0.0.1:8790");
    expect(text).toContain("remote   billing: UNREACHABLE: timeout");
    expect(text.trimEnd().endsWith("Ctrl-C stops it")).toBe(true);
  });

  it("warns of a --var DEFAULT_MODEL one edit from a known model id", () => {
    const facts = { agents: { defaultAgent: "writer", names: ["writer"] }, remote: [] };
    const typo = planDev(project(), ["--var", "DEFAULT_MODEL:claude-sonet-4-6"], {});
    expect(banner(typo, facts)).toContain(
      'note     DEFAULT_MODEL: "claude-sonet-4-6" is not a model the harness knows; did you mean claude-sonnet-4-6?',
    );
    for (const model of ["claude-sonnet-4-6", "gpt-9"])
      expect(
        banner(planDev(project(), ["--var", `DEFAULT_MODEL:${model}`], {}), facts),
      ).not.toContain("DEFAULT_MODEL:");
  });

  it("closed, the try line carries the admin key (the session's, or where --var put one)", () => {
    const facts = { agents: { defaultAgent: "writer", names: ["writer"] }, remote: [] };
    const closed = planDev(project(), ["--var", "AUTH_REQUIRED:true"], {});
    expect(banner(closed, facts)).toContain(
      `try      npm run a2a -- chat writer --token ${closed.sessionAdminKey}`,
    );
    const keyed = planDev(project(), ["--var", "AUTH_REQUIRED:true", "ADMIN_API_KEY:k"], {});
    expect(banner(keyed, facts)).toContain(
      "try      npm run a2a -- chat writer --token <the key of --var ADMIN_API_KEY>",
    );
    expect(banner(planDev(project(), [], {}), facts)).toMatch(/try +npm run a2a -- chat writer\n/);
  });
});

describe("the secrets of the agents' tools", () => {
  it("go to wrangler as --var from .dev.vars, the granted ones set there only, a --var winning", () => {
    const dir = project({
      ".dev.vars": "ORDERS_API_KEY=k-1\nORDERS_API_URL=https://api.example.com/\nOTHER=x\n",
    });
    mkdirSync(join(dir, "agents", "orders"), { recursive: true });
    writeFileSync(
      join(dir, "agents", "orders", "IDENTITY.md"),
      "---\nname: orders\ntools:\n  secrets: [ORDERS_API_KEY, ORDERS_API_URL, ORDERS_UNSET]\n---\nHi.\n",
    );
    const plan = planDev(dir, [], {});
    expect(plan.args.join(" ")).toContain(
      "--var ORDERS_API_KEY:k-1 --var ORDERS_API_URL:https://api.example.com/",
    );
    expect(plan.args.join(" ")).not.toMatch(/OTHER|ORDERS_UNSET/);
    expect(plan.toolSecrets).toEqual({
      names: ["ORDERS_API_KEY", "ORDERS_API_URL"],
      from: ".dev.vars",
    });
    const given = planDev(dir, ["--var", "ORDERS_API_KEY:mine"], {});
    expect(given.args.filter((a) => a.startsWith("ORDERS_API_KEY:"))).toEqual([
      "ORDERS_API_KEY:mine",
    ]);
    expect(banner(plan, { agents: null, remote: [] })).toContain(
      "tools    ORDERS_API_KEY, ORDERS_API_URL from .dev.vars (tools.secrets)",
    );
  });
});
