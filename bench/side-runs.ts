/**
 * What `npm run bench` (bench/compare.ts) measures in processes of their own: a Worker's bundle
 * size (`wrangler deploy --dry-run` into a temporary directory, raw and gzipped) and prompt growth
 * over one long conversation (bench/prompt-growth.ts, with its own model and server, read back
 * from its `--json`). Node only.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { PromptGrowth } from "./prompt-cache.ts";

const root = join(import.meta.dirname, "..");

/** A Worker's `wrangler deploy --dry-run` size (bytes). */
export interface BundleSize {
  raw: number;
  gzip: number;
}

/** bench/prompt-growth.ts in its own process (its own model and server), read back as JSON. */
export function promptGrowth(turns: number): PromptGrowth {
  const dir = mkdtempSync(join(tmpdir(), "a2a-prompt-"));
  const out = join(dir, "prompt.json");
  const result = spawnSync(
    process.execPath,
    [join(root, "bench", "prompt-growth.ts"), "--turns", String(turns), "--json", out],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "ignore", "inherit"] },
  );
  try {
    if (result.status !== 0) throw new Error("bench/prompt-growth.ts failed");
    return JSON.parse(readFileSync(out, "utf8")) as PromptGrowth;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The gzipped and raw size of `wrangler deploy --dry-run` of a Worker config. */
export function bundleSize(config: string): BundleSize {
  const out = mkdtempSync(join(tmpdir(), "a2a-bundle-"));
  const result = spawnSync(
    join(root, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "-c", config, "--outdir", out],
    { cwd: root, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  if (result.status !== 0) throw new Error(`dry-run failed: ${result.stderr}`);
  let raw = 0;
  let gzip = 0;
  for (const file of readdirSync(out)) {
    if (!/\.(js|mjs|wasm)$/.test(file)) continue;
    const bytes = readFileSync(join(out, file));
    raw += statSync(join(out, file)).size;
    gzip += gzipSync(bytes).length;
  }
  rmSync(out, { recursive: true, force: true });
  return { raw, gzip };
}
