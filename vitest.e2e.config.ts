/**
 * End-to-end tests in Node: each file starts the scripted Messages API and the harness under
 * `wrangler dev` (through `npm run dev`'s script) and drives it with the official @a2a-js/sdk
 * client. Files run one after another: each dev server takes ~650 MiB.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    environment: "node",
    fileParallelism: false,
    // Generous: on a loaded machine (CPU hogs, other test runs) starting wrangler dev or Chromium,
    // or a CLI that runs wrangler, takes minutes; a test must not fail for being slow.
    testTimeout: 180_000,
    hookTimeout: 240_000,
  },
});
