/**
 * Helpers of the CLI tests: running `cli/a2a.ts` as a user would (its own process, no color, no
 * token from the environment, its config directory a temporary one, never the user's) and a
 * minimal A2A v0.3 agent on 127.0.0.1. Node only.
 */
import { rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cardAt } from "./origins.ts";
import { type Run, runNode, startNode, tempDir } from "./processes.ts";

const CLI = "cli/a2a.ts";

/**
 * Runs `cli/a2a.ts` with `args` (no color, no token from the environment, `env` added; unless
 * `env` names an XDG_CONFIG_HOME, a temporary one removed after the run); `input` (default
 * none) is written to its stdin and stdin closed, as a shell's pipe or `< /dev/null` would.
 */
export async function spawnCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<Run> {
  const configHome = options.env?.XDG_CONFIG_HOME ? undefined : tempDir("a2a-cli-config-");
  const run = await runNode(CLI, args, {
    env: {
      NO_COLOR: "1",
      A2A_TOKEN: "",
      ...(configHome ? { XDG_CONFIG_HOME: configHome } : {}),
      ...options.env,
    },
    input: options.input ?? "",
  });
  if (configHome) rmSync(configHome, { recursive: true, force: true });
  return run;
}

/** A CLI run in progress: its output so far, its stdin, a signal, its exit code. */
export interface LiveCli {
  out(): string;
  err(): string;
  /** Writes `text` to its stdin; `end` closes it after. */
  write(text: string, end?: boolean): void;
  kill(signal?: NodeJS.Signals): void;
  exited: Promise<number>;
  /** Resolves once `pattern` shows in stdout + stderr (rejects after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/**
 * Starts the CLI against the harness at `url` without waiting for it (no color, no token, `env`
 * added).
 */
export function startCli(url: string, args: string[], env: Record<string, string> = {}): LiveCli {
  const { child, output, done } = startNode(CLI, [...args, "--url", url], {
    env: { NO_COLOR: "1", A2A_TOKEN: "", A2A_URL: "", ...env },
  });
  let closed = false;
  const exited = done.then((run) => {
    closed = true;
    return run.code;
  });
  return {
    out: output.out,
    err: output.err,
    write: (text, end = false) => (end ? child.stdin?.end(text) : child.stdin?.write(text)),
    kill: (signal) => child.kill(signal),
    exited,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output.out() + output.err());
        if (match) return match;
        if (Date.now() > deadline || closed)
          throw new Error(`no ${pattern} in the CLI's output:\n${output.out()}\n${output.err()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/**
 * Runs the CLI against the harness at `url`; asynchronous, so that servers in this process keep
 * answering while it waits on them.
 */
export function runCli(url: string, args: string[], input = ""): Promise<Run> {
  return spawnCli([...args, "--url", url], { env: { A2A_URL: "" }, input });
}

/** A minimal A2A v0.3 agent: a v0.3 card and message/send answering with a completed Task. */
export async function startLegacyAgent(): Promise<{ url: string; close(): Promise<void> }> {
  let legacyUrl = "";
  const legacy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.method === "GET" && req.url?.startsWith("/.well-known/agent-card.json")) {
        res.end(
          JSON.stringify(
            cardAt(`${legacyUrl}/`, {
              name: "legacy-echo",
              description: "Echoes what it is told (an A2A v0.3 agent)",
            }),
          ),
        );
        return;
      }
      const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id: number;
        method: string;
        params: { message: { parts: Array<{ text?: string }>; contextId?: string } };
      };
      if (request.method !== "message/send") {
        res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: request.id,
            error: { code: -32601, message: "no" },
          }),
        );
        return;
      }
      const text = request.params.message.parts.map((p) => p.text ?? "").join("");
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: request.id,
          result: {
            kind: "task",
            id: "legacy-task-1",
            contextId: request.params.message.contextId ?? "legacy-ctx",
            status: { state: "completed", timestamp: new Date().toISOString() },
            artifacts: [
              {
                artifactId: "echo",
                name: "echo",
                parts: [{ kind: "text", text: `echo: ${text}` }],
              },
            ],
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => legacy.listen(0, "127.0.0.1", resolve));
  legacyUrl = `http://127.0.0.1:${(legacy.address() as AddressInfo).port}`;
  return {
    url: legacyUrl,
    close: () => new Promise<void>((resolve) => legacy.close(() => resolve())),
  };
}
