/**
 * End-to-end tests in Node: the harness under `wrangler dev` (through `npm run dev`'s script)
 * keyed to the scripted Messages API, driven with the official @a2a-js/sdk client, the CLI and
 * Chromium. Two files run at once (each dev server takes ~650 MiB); a test must therefore hold
 * with another file's servers beside it.
 *
 * Two projects share the two workers:
 * - `e2e`: a file starts its own servers (test/e2e/dev-server.ts: startScriptedHarness,
 *   startDevServer) on its own ports and state, in a worker of its own (isolated).
 * - `e2e-shared`: the files that import test/e2e/shared-harness.ts (found here by that import).
 *   Their worker runs file after file (isolate off) and keeps a scripted harness per set of vars
 *   (sharedScriptedHarness(vars)), so files with the same vars pay one server's start per worker
 *   instead of one each. Such a file keeps to its own agents, contexts, users and scenario ids,
 *   and leaves the server as it found it for everyone else (shared-harness.ts says what that
 *   means); to opt a new file in, call sharedScriptedHarness instead of startScriptedHarness and
 *   `release()` it in afterAll. shared-servers-setup.ts stops the shared servers at the end.
 * vitest runs the isolated project's files first (longest first, from its cache), then the shared
 * ones, so a worker's shared files come one after another.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { quietDependencySourceMaps } from "./test/quiet-source-maps.ts";

const E2E = "test/e2e";

/** The e2e test files that share servers: those that import shared-harness.ts. */
const sharing = readdirSync(join(import.meta.dirname, E2E), { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => join(E2E, file))
  .filter((file) =>
    /from "\.\/shared-harness\.ts"/.test(readFileSync(join(import.meta.dirname, file), "utf8")),
  );

export default defineConfig({
  plugins: [quietDependencySourceMaps()],
  test: {
    environment: "node",
    fileParallelism: true,
    maxWorkers: 2,
    // Generous: on a loaded machine (CPU hogs, other test runs) starting wrangler dev or Chromium,
    // or a CLI that runs wrangler, takes minutes; a test must not fail for being slow.
    testTimeout: 180_000,
    hookTimeout: 240_000,
    // expect.poll waits for the server (a model round trip, a page update); vitest's default of
    // 1 s times out on a loaded machine. A passing poll returns as soon as it holds.
    expect: { poll: { timeout: 60_000, interval: 100 } },
    projects: [
      {
        extends: true,
        test: { name: "e2e", include: [`${E2E}/**/*.test.ts`], exclude: sharing },
      },
      {
        extends: true,
        test: {
          name: "e2e-shared",
          include: sharing,
          isolate: false,
          globalSetup: [`${E2E}/shared-servers-setup.ts`],
        },
      },
    ],
  },
});
