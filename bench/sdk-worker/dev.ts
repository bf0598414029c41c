/**
 * `node bench/sdk-worker/dev.ts [<wrangler dev args>]`: starts the SDK Worker peer of `npm run
 * bench` as scripts/dev.ts starts the harness: applies its D1 migrations (the SDK's task table,
 * migrations/) to the local database of the same `--persist-to`, then runs `wrangler dev` on its
 * own config with the arguments passed through, and forwards SIGINT/SIGTERM to it.
 */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const config = join(import.meta.dirname, "wrangler.toml");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const args = process.argv.slice(2);
const at = args.indexOf("--persist-to");
const persist = at >= 0 ? ["--persist-to", args[at + 1] ?? ""] : [];

const migrate = spawnSync(
  wrangler,
  ["d1", "migrations", "apply", "DB", "--local", "--config", config, ...persist],
  { cwd: root, stdio: "inherit" },
);
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const child = spawn(wrangler, ["dev", "--config", config, ...args], {
  cwd: root,
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
