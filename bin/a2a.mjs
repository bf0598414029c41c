#!/usr/bin/env node
// The `a2a` CLI (cli/a2a.ts). Node 22.18+ runs TypeScript itself; an older Node hands over to
// the project's own Node 22 (the `node` package in devDependencies).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../cli/a2a.ts", import.meta.url));
const [major, minor] = process.versions.node.split(".").map(Number);
if (major > 22 || (major === 22 && minor >= 18)) {
  await import(cli);
} else {
  const node = createRequire(import.meta.url).resolve("node/bin/node");
  const result = spawnSync(node, [cli, ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(result.status ?? 1);
}
