/**
 * The official A2A conformance kit as this repository uses it: where it comes from
 * (github.com/a2aproject/a2a-tck), the commit of each branch it is pinned to, where
 * `npm run tck:setup` builds it (`.tck/`, or A2A_TCK_DIR) and whether a built kit is the pinned
 * one with its Python venv; and the two corpora read as data beside it, each pinned to a commit
 * and kept in the kit (or named by its own variable): ACTS (the A2A Conformance Test
 * Specification's tests) and a2a-jcs-v01 (RFC 8785 vectors). Shared by scripts/tck-setup.ts,
 * scripts/tck.ts and the tests that read the corpora. Node only.
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

/** A corpus read as data: the repository and commit it is pinned to, the folder there, where the
 * kit keeps it, and the variable that names another copy. */
export interface Corpus {
  name: string;
  repo: string;
  branch: string;
  commit: string;
  path: string;
  folder: string;
  variable: string;
}

/** ACTS, the A2A Conformance Test Specification's tests (a2aproject/A2A#1882), run by scripts/acts/. */
export const ACTS: Corpus = {
  name: "ACTS",
  repo: "https://github.com/a2aproject/A2A",
  branch: "conformance-spec",
  commit: "dbcabfba4f01cc162c965f0fde5f44fc1f1e70e5",
  path: "tests/acts",
  folder: "acts",
  variable: "A2A_ACTS_DIR",
};

/** The RFC 8785 vectors of Agent Card signing (a2a-tck#227), held to the pinned digest. */
export const JCS_VECTORS: Corpus & { corpusDigest: string } = {
  name: "a2a-jcs-v01",
  repo: TCK_REPO,
  branch: "main",
  commit: "da1216f06b1df713e18dba7d7d1775f8bf6c42d4",
  path: "conformance-vectors/a2a-jcs-v01",
  folder: "a2a-jcs-v01",
  variable: "A2A_JCS_VECTORS_DIR",
  corpusDigest: "2ec93667b1436537a7f46cf882bae37977dc10face4bb27a2120e2d7aa824da4",
};

/** Where a corpus is read from: its variable, else its folder in the kit. */
export const corpusDir = (corpus: Corpus, root: string, env: NodeJS.ProcessEnv = process.env) =>
  env[corpus.variable] || join(kitDir(root, env), corpus.folder);

/** The ACTS tests' folder. */
export const actsDir = (root: string, env: NodeJS.ProcessEnv = process.env) =>
  corpusDir(ACTS, root, env);

/** The a2a-jcs-v01 vectors' folder: its variable, else the copy kept in the repository (test/fixtures/). */
export const jcsVectorsDir = (root: string, env: NodeJS.ProcessEnv = process.env) =>
  env[JCS_VECTORS.variable] || join(root, "test", "fixtures", JCS_VECTORS.folder);
