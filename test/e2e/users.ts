/**
 * `npm run users` (scripts/users.ts) on a dev server's local state, as an operator runs it beside
 * the running server: a command's output, and a user added with the token it printed. Node only.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { DevServer } from "./dev-server.ts";
import { ROOT } from "./processes.ts";

/**
 * Runs `node scripts/users.ts <args> --persist-to <the server's state>`; its stdout (throws with
 * its stderr when it fails).
 */
export function usersCommand(server: Pick<DevServer, "persistDir">, args: string[]): string {
  const result = spawnSync(
    process.execPath,
    [join(ROOT, "scripts", "users.ts"), ...args, "--persist-to", server.persistDir],
    { cwd: ROOT, encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`users ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** The token in what `users add` printed, if any. */
export function tokenIn(output: string): string | undefined {
  return /(a2a_[A-Za-z0-9_-]{43})/.exec(output)?.[1];
}

/**
 * Adds user `id` on the server's state (`options`: more `users add` options, such as
 * `--role admin`); the token it printed, if any.
 */
export function addUser(
  server: Pick<DevServer, "persistDir">,
  id: string,
  options: string[] = [],
): string | undefined {
  return tokenIn(usersCommand(server, ["add", id, ...options]));
}
