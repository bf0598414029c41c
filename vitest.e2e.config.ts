/**
 * End-to-end tests in Node: each file starts the scripted Messages API and the harness under
 * `wrangler dev` (through `npm run dev`'s script) and drives it with the official @a2a-js/sdk
 * client. Two files run at once (each dev server takes ~650 MiB; every file uses its own ports and
 * state), which keeps the suite inside CI's budget; a test must therefore hold with another file's
 * servers beside it.
 */
import { defineConfig } from "vitest/config";
import { quietDependencySourceMaps } from "./test/quiet-source-maps.ts";

export default defineConfig({
  plugins: [quietDependencySourceMaps()],
  test: {
    include: ["test/e2e/**/*.test.ts"],
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
  },
});
