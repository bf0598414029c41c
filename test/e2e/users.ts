/**
 * `npm run users` (scripts/users.ts) on a dev server's local state, as an operator runs it beside
 * the running server: a command's output, and a user added with the token it printed. Node only.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { DevServer } from "./dev-server.ts";
import { ROOT } from "./processes.ts";

/**
 * Runs `node scripts/users.ts <args> --persist-to <the server's state>`; its stdout (throws with
 * its stderr when it fails). Asynchronous: a test blocked for the seconds a synchronous run takes
 * would meet a kept-alive connection the server closed meanwhile ("other side closed").
 */
export function usersCommand(
  server: Pick<DevServer, "persistDir">,
  args: string[],
): Promise<string> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "scripts", "users.ts"), ...args, "--persist-to", server.persistDir],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`users ${args.join(" ")}: ${stderr}`)),
    );
  });
}

/** The token in what `users add` printed, if any. */
export function tokenIn(output: string): string | undefined {
  return /(a2a_[A-Za-z0-9_-]{43})/.exec(output)?.[1];
}

/**
 * Adds user `id` on the server's state (`options`: more `users add` options, such as
 * `--role admin`); the token it printed, if any.
 */
export async function addUser(
  server: Pick<DevServer, "persistDir">,
  id: string,
  options: string[] = [],
): Promise<string | undefined> {
  return tokenIn(await usersCommand(server, ["add", id, ...options]));
}
