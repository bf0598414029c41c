/**
 * Helpers of the CLI tests: running `cli/a2a.ts` as a user would (its own process, no color, no
 * token from the environment, its config directory a temporary one, never the user's) and a
 * minimal A2A v0.3 agent on 127.0.0.1. Node only.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cardAt } from "./origins.ts";

const root = join(import.meta.dirname, "..", "..");

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs `cli/a2a.ts` with `args` (no color, no token from the environment, `env` added; unless
 * `env` names an XDG_CONFIG_HOME, a temporary one removed after the run); `input`, when given,
 * is written to its stdin and stdin closed.
 */
export function spawnCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<CliRun> {
  const configHome = options.env?.XDG_CONFIG_HOME
    ? undefined
    : mkdtempSync(join(tmpdir(), "a2a-cli-config-"));
  const child = spawn(process.execPath, [join(root, "cli", "a2a.ts"), ...args], {
    cwd: root,
    env: {
      ...process.env,
      NO_COLOR: "1",
      A2A_TOKEN: "",
      ...(configHome ? { XDG_CONFIG_HOME: configHome } : {}),
      ...options.env,
    },
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  if (options.input !== undefined) child.stdin.end(options.input);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      if (configHome) rmSync(configHome, { recursive: true, force: true });
      resolve({ code: code ?? -1, out, err });
    }),
  );
}

/** A CLI run in progress: its output so far, a signal, its exit code. */
export interface LiveCli {
  out(): string;
  err(): string;
  kill(signal: NodeJS.Signals): void;
  exited: Promise<number>;
  /** Resolves once `pattern` shows in stdout + stderr (rejects after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/** Starts the CLI against the harness at `url` without waiting for it (no color, no token). */
export function startCli(url: string, args: string[]): LiveCli {
  const child = spawn(process.execPath, [join(root, "cli", "a2a.ts"), ...args, "--url", url], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1", A2A_TOKEN: "", A2A_URL: "" },
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  let closed = false;
  const exited = new Promise<number>((resolve) =>
    child.once("close", (code) => {
      closed = true;
      resolve(code ?? -1);
    }),
  );
  return {
    out: () => out,
    err: () => err,
    kill: (signal) => child.kill(signal),
    exited,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(out + err);
        if (match) return match;
        if (Date.now() > deadline || closed)
          throw new Error(`no ${pattern} in the CLI's output:\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/**
 * Runs the CLI against the harness at `url`; asynchronous, so that servers in this process keep
 * answering while it waits on them.
 */
export function runCli(url: string, args: string[], input = ""): Promise<CliRun> {
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
