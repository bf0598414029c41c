/**
 * The official A2A conformance kit as this repository uses it: where it comes from
 * (github.com/a2aproject/a2a-tck), the commit of each branch it is pinned to, where
 * `npm run tck:setup` builds it (`.tck/`, or A2A_TCK_DIR) and whether a built kit is the pinned
 * one with its Python venv. Shared by scripts/tck-setup.ts and scripts/tck.ts. Node only.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Where the kit is fetched from (A2A_TCK_REPO: a mirror, or a local repository). */
export const TCK_REPO = "https://github.com/a2aproject/a2a-tck";

/** One branch of the kit, at its pinned commit, and the folder it is built into. */
export interface KitBranch {
  spec: "1.0" | "0.3";
  branch: string;
  commit: string;
  folder: string;
}

/** The pins: the commits the conformance results in docs/conformance.md were taken with. */
export const PINNED: readonly KitBranch[] = [
  {
    spec: "1.0",
    branch: "1.0-dev",
    commit: "357c4a87afa2818731590647cccbea31c31733a2",
    folder: "tck-1.0",
  },
  {
    spec: "0.3",
    branch: "0.3.x",
    commit: "eb1f804c27ea25db8805264d9ed2d7ca077a7776",
    folder: "tck-0.3",
  },
];

/**
 * The pins in force: {@link PINNED}, or those of A2A_TCK_COMMITS (`1.0=<sha>,0.3=<sha>`, for a
 * fork or a test repository; a spec it leaves out keeps its pin).
 */
export function pins(env: NodeJS.ProcessEnv = process.env): KitBranch[] {
  const given = new Map(
    (env.A2A_TCK_COMMITS ?? "")
      .split(",")
      .map((pair) => pair.split("=").map((s) => s.trim()))
      .filter((pair): pair is [string, string] => pair.length === 2 && Boolean(pair[1])),
  );
  return PINNED.map((pin) => ({ ...pin, commit: given.get(pin.spec) ?? pin.commit }));
}

/** The kit's directory: A2A_TCK_DIR, else `.tck/` in the repository. */
export const kitDir = (root: string, env: NodeJS.ProcessEnv = process.env) =>
  env.A2A_TCK_DIR || join(root, ".tck");

/** What the kit's `kit.json` records. */
export interface KitStamp {
  commits: Record<string, string>;
  python: string;
}

/** Why the kit in `dir` is not the pinned one ready to run, or null when it is. */
export function kitProblem(dir: string, expected: readonly KitBranch[]): string | null {
  if (!existsSync(join(dir, "kit.json"))) return `no conformance kit in ${dir}`;
  let stamp: KitStamp;
  try {
    stamp = JSON.parse(readFileSync(join(dir, "kit.json"), "utf8")) as KitStamp;
  } catch {
    return `the conformance kit in ${dir} is incomplete (kit.json unreadable)`;
  }
  for (const pin of expected) {
    const file = join(dir, pin.folder, ".tck-commit");
    const built = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
    if (built !== pin.commit || stamp.commits?.[pin.spec] !== pin.commit)
      return `the conformance kit in ${dir} has ${pin.branch} at ${(built || "no commit").slice(0, 7)}, not the pinned ${pin.commit.slice(0, 7)}`;
  }
  if (!existsSync(join(dir, "venv", "bin", "python")))
    return `the conformance kit in ${dir} has no Python venv`;
  if (!existsSync(join(dir, "run-tck.sh")) || !existsSync(join(dir, "lib", "tck_driver.py")))
    return `the conformance kit in ${dir} has no driver (run-tck.sh, lib/tck_driver.py)`;
  return null;
}
