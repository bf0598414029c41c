/**
 * `npm run dev` on a taken port (issue 29): it stops before building, making a key or printing a
 * banner, exit 1, with one line naming the process that holds the port (its pid and command), or
 * "another npm run dev" with that one's pid and directory.
 */
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { spawnCli } from "./cli-run.ts";
import { freePort } from "./dev-server.ts";
import { ROOT, runNode } from "./processes.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";

/** Runs `node scripts/dev.ts <args>` to its end. */
const runDev = (args: string[]) =>
  runNode("scripts/dev.ts", args, { env: { WRANGLER_SEND_METRICS: "false" } });

let harness: SharedHarness | undefined;
afterAll(async () => {
  await harness?.release();
});

describe("npm run dev on a taken port", () => {
  it("names the process that holds it, and builds, keys and prints nothing", async () => {
    const port = await freePort();
    const script = `require("net").createServer().listen(${port},"127.0.0.1",()=>console.log(1))`;
    const holder = spawn(process.execPath, ["-e", script]);
    try {
      await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
      const run = await runDev(["--port", String(port)]);
      expect(run.code).toBe(1);
      expect(run.out).toBe("");
      expect(run.err).toBe(
        `port ${port} on 127.0.0.1 is taken by pid ${holder.pid} (${process.execPath} -e ${script}): stop it, or use another port: npm run dev -- --port ${port + 1}\n`,
      );
    } finally {
      holder.kill();
    }
  });

  it("says when the holder is another npm run dev, and which", async () => {
    harness = await sharedScriptedHarness();
    const { port } = harness.server;
    const run = await runDev(["--port", String(port)]);
    expect(run.code).toBe(1);
    expect(run.out).not.toContain("dev-admin-");
    expect(run.err).toMatch(
      new RegExp(
        `^port ${port} on 127\\.0\\.0\\.1 is taken by another npm run dev \\(pid \\d+, in ${ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\): stop it, or use another port: npm run dev -- --port ${port + 1}\\n$`,
      ),
    );
    // The first one still serves.
    expect((await spawnCli(["card", "writer", "--url", harness.server.url])).code).toBe(0);
  });
});
