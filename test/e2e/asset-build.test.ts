/**
 * The static asset build (scripts/build-assets.ts) rewrites nothing when nothing changed: wrangler
 * dev watches its assets and restarts the Worker when one is written, so a build that touched
 * them (as a deploy test or `npm run agents` does while other dev servers run) restarted every
 * running server mid-request. Runs the build twice on this checkout and compares modification
 * times; a build that writes nothing is harmless to the servers beside it.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

/** Every file under `dir`, with its modification time. */
function mtimes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      out[path] = statSync(path).mtimeMs;
    }
  return out;
}

const generated = [
  "src/console/assets.generated.ts",
  "src/tools/run-code/transpiler-asset.generated.ts",
].map((p) => join(root, p));

const build = () =>
  execFileSync(process.execPath, [join(root, "scripts", "build-assets.ts")], { cwd: root });

describe("the static asset build", () => {
  it("writes nothing when nothing changed", () => {
    build();
    const before = {
      ...mtimes(join(root, "dist", "assets")),
      ...Object.fromEntries(generated.map((p) => [p, statSync(p).mtimeMs])),
    };
    build();
    const after = {
      ...mtimes(join(root, "dist", "assets")),
      ...Object.fromEntries(generated.map((p) => [p, statSync(p).mtimeMs])),
    };
    expect(Object.keys(before).length).toBeGreaterThan(3);
    expect(after).toEqual(before);
  });
});
