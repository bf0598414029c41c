/**
 * `npm run bench:coldstart [-- --rounds N]`: this Worker's cold start beside the SDK Worker's
 * (bench/sdk-worker). Builds each Worker once as it deploys (ours by `npm run deploy -- --dry-run
 * --plan paid`, minified, zod's locales left out; the SDK Worker by `wrangler deploy --dry-run
 * --outfile` of its own wrangler.toml, as a Workers developer would ship it), then profiles each bundle's startup `--rounds` times (default
 * 5), alternating, with `wrangler check startup --worker`: it loads the bundle's main module in a
 * local workerd under the inspector, so it needs neither a login nor the network. Prints the
 * gzipped size (what Cloudflare's size limit counts, source maps excluded) and the startup's
 * active CPU (median and lowest of the rounds: the machine's load only adds), and holds them to
 * the targets (500 KiB gzipped, at most 3x the SDK Worker's startup). Local CPU is not
 * Cloudflare's: the ratio is the figure to read.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { percentile } from "./percentile.ts";

const root = join(import.meta.dirname, "..");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
const rounds = Math.max(1, Number(values.rounds) || 5);
/** The targets of issue 39 item 5. */
const MAX_GZIP_KIB = 500;
const MAX_STARTUP_RATIO = 3;

/** Runs a command in the project; throws with its output when it fails. */
function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
  });
  if (result.status !== 0)
    throw new Error(`${[command, ...args].join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** One profile of a bundle's startup: its gzipped KiB and active CPU ms, as wrangler prints them. */
function profile(bundle: string, dir: string): { gzipKiB: number; activeMs: number } {
  const out = run(wrangler, [
    "check",
    "startup",
    "--worker",
    bundle,
    "--outfile",
    join(dir, "startup.cpuprofile"),
  ]);
  const gzip = /gzip: ([\d.]+) KiB/.exec(out);
  const active = /Active: ([\d.]+) ms/.exec(out);
  if (!gzip || !active) throw new Error(`unexpected wrangler check startup output:\n${out}`);
  return { gzipKiB: Number(gzip[1]), activeMs: Number(active[1]) };
}

const dir = mkdtempSync(join(tmpdir(), "a2a-coldstart-"));
try {
  // Ours exactly as `npm run deploy -- --plan paid` builds it (scripts/bundle-worker.ts, then
  // wrangler); the SDK Worker as a Workers developer would ship it.
  run(process.execPath, [join(root, "scripts", "deploy.ts"), "--dry-run", "--plan", "paid"]);
  const workers = [
    { name: "ours", config: join(root, "dist", "deploy", "paid", "wrangler.json") },
    { name: "SDK Worker", config: join(root, "bench", "sdk-worker", "wrangler.toml") },
  ].map((w) => {
    // `--outfile`: the upload's form, which `wrangler check startup --worker` reads.
    const bundle = join(dir, `${w.name.replace(/\W/g, "")}.bundle`);
    run(wrangler, ["deploy", "--dry-run", "-c", w.config, "--outfile", bundle]);
    return { ...w, bundle, gzipKiB: 0, active: [] as number[] };
  });
  for (let i = 0; i < rounds; i++)
    for (const w of workers) {
      const { gzipKiB, activeMs } = profile(w.bundle, dir);
      w.gzipKiB = gzipKiB;
      w.active.push(activeMs);
    }
  console.log(`cold start (wrangler check startup, ${rounds} rounds; active CPU ms)`);
  for (const w of workers)
    console.log(
      `  ${w.name.padEnd(11)} ${w.gzipKiB.toFixed(0).padStart(5)} KiB gzipped  startup median ${percentile(w.active, 50).toFixed(1)} ms, lowest ${Math.min(...w.active).toFixed(1)} ms`,
    );
  const [ours, sdk] = workers;
  if (!ours || !sdk) throw new Error("two workers expected");
  const ratio = percentile(ours.active, 50) / percentile(sdk.active, 50);
  const lowRatio = Math.min(...ours.active) / Math.min(...sdk.active);
  const mark = (ok: boolean) => (ok ? "met" : "NOT met");
  console.log(
    `  targets: size ${ours.gzipKiB.toFixed(0)} of ${MAX_GZIP_KIB} KiB (${mark(ours.gzipKiB <= MAX_GZIP_KIB)}); startup ${ratio.toFixed(1)}x the SDK Worker's (lowest ${lowRatio.toFixed(1)}x), at most ${MAX_STARTUP_RATIO}x (${mark(ratio <= MAX_STARTUP_RATIO)})`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
