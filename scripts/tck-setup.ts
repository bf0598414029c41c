/**
 * `npm run tck:setup`: builds the official A2A conformance kit that `npm run tck` runs, in
 * `.tck/` (or A2A_TCK_DIR), in five steps, each named if it fails:
 *   1. checks for git and a Python 3.10 or later with its venv module (A2A_TCK_PYTHON, else python3);
 *   2. fetches github.com/a2aproject/a2a-tck (A2A_TCK_REPO for a mirror or a local repository)
 *      into `.tck/a2a-tck.git`, and checks out each branch at its pinned commit (tck-kit.ts) as
 *      `tck-1.0/` and `tck-0.3/`, each with a `.tck-commit`;
 *   3. applies tck/tck-1.0-local.patch to tck-1.0 (its push receiver on 127.0.0.1; the card fetched
 *      with `A2A-Version: 1.0`);
 *   4. makes a venv and installs tck/requirements.txt into it (pip, from PyPI);
 *   5. adds the driver (tck/lib/) and run-tck.sh, and records the commits in kit.json;
 *   6. fetches the ACTS corpus, read as data beside the kit, at its pinned commit (tck-kit.ts):
 *      a2aproject/A2A `tests/acts` (A2A_ACTS_REPO for a mirror) as `acts/`. A corpus that cannot be
 *      fetched is said, not fatal: npm run tck then skips it, or reads the copy A2A_ACTS_DIR names.
 *      (The a2a-jcs-v01 vectors are kept in the repository: test/fixtures/a2a-jcs-v01.)
 * Running it again rebuilds the kit (the fetched repository is reused). Node only.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parserProblem } from "../cli/parser-problem.ts";
import { ACTS, type Corpus, type KitStamp, kitDir, pins, TCK_REPO } from "./tck-kit.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const vendored = join(root, "tck");

const USAGE = `usage: npm run tck:setup [-- options]

Builds the official A2A conformance kit (github.com/a2aproject/a2a-tck, branches 1.0-dev and
0.3.x at their pinned commits, with the local patch and driver in tck/) and a Python venv for it,
so that npm run tck can run it. Needs git, Python 3.10 or later with venv, and the network
(GitHub and PyPI).

options:
  --dir <path>      where to build it (default .tck/ in the repository, or $A2A_TCK_DIR)
  --repo <url>      where to fetch the kit from (default ${TCK_REPO}, or $A2A_TCK_REPO)
  --python <exe>    the Python to make the venv with (default python3, or $A2A_TCK_PYTHON)
  -h, --help        this text
`;

/** A failed step: its number and name, and why. */
class StepError extends Error {}

/** Runs a command; its output is kept for the error, not shown. */
function run(command: string, args: string[], cwd?: string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  return {
    ok: result.status === 0,
    missing: (result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT",
    out: `${result.stdout ?? ""}${result.stderr ?? ""}`.trim(),
  };
}

/** The last lines of a command's output, indented, for an error. */
const tail = (out: string) =>
  out
    ? `\n${out
        .split("\n")
        .slice(-8)
        .map((l) => `    ${l}`)
        .join("\n")}`
    : "";

function step(n: number, name: string, check: () => void): void {
  console.log(`tck:setup: ${n}. ${name}`);
  try {
    check();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new StepError(`step ${n} (${name}) failed: ${why}`);
  }
}

/** The command line, or exit 2 (with the usage) on a wrong one. */
function commandLine() {
  try {
    return parseArgs({
      options: {
        dir: { type: "string" },
        repo: { type: "string" },
        python: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`tck:setup: ${parserProblem(error)}\n\n${USAGE}`);
    process.exit(2);
  }
}

/** Fetches `corpus` from `from` at its pinned commit into the kit; why not, or null. */
function fetchCorpus(corpus: Corpus, from: string, dir: string): string | null {
  const bare = join(dir, `${corpus.folder}.git`);
  if (!existsSync(join(bare, "HEAD"))) {
    const init = run("git", ["init", "--quiet", "--bare", bare]);
    if (!init.ok) return `git init failed${tail(init.out)}`;
  }
  const fetched =
    run("git", ["--git-dir", bare, "fetch", "--quiet", from, corpus.commit]).ok ||
    run("git", [
      "--git-dir",
      bare,
      "fetch",
      "--quiet",
      from,
      `+refs/heads/${corpus.branch}:refs/heads/${corpus.branch}`,
    ]).ok;
  const have = run("git", [
    "--git-dir",
    bare,
    "rev-parse",
    "--verify",
    `${corpus.commit}^{commit}`,
  ]);
  if (!fetched || !have.ok) return `${from} has no commit ${corpus.commit.slice(0, 7)}`;
  const target = join(dir, corpus.folder);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const archive = spawnSync("git", ["--git-dir", bare, "archive", corpus.commit, corpus.path], {
    maxBuffer: 1 << 30,
  });
  if (archive.status !== 0) return `${corpus.path} is not in that commit`;
  const depth = String(corpus.path.split("/").length);
  const untar = spawnSync("tar", ["-x", "-C", target, "--strip-components", depth], {
    input: archive.stdout,
  });
  return untar.status === 0 ? null : "tar could not unpack it";
}

function main(): void {
  const options = commandLine();
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  const dir = resolve(options.dir ?? kitDir(root));
  const repo = options.repo ?? (process.env.A2A_TCK_REPO || TCK_REPO);
  const python = options.python ?? (process.env.A2A_TCK_PYTHON || "python3");
  const branches = pins();
  const bare = join(dir, "a2a-tck.git");
  let pythonVersion = "";

  step(1, "git and Python", () => {
    const git = run("git", ["--version"]);
    if (!git.ok)
      throw new Error(`git ${git.missing ? "was not found" : "does not run"}: install git`);
    const py = run(python, [
      "-c",
      "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])",
    ]);
    if (py.missing)
      throw new Error(
        `${python} was not found: install Python 3.10 or later with its venv module (Debian: apt-get install python3 python3-venv), or name one with --python`,
      );
    if (!py.ok)
      throw new Error(
        `${python} has no venv or ensurepip module (Debian: apt-get install python3-venv)${tail(py.out)}`,
      );
    pythonVersion = py.out.split("\n").at(-1) ?? "";
    const [major = 0, minor = 0] = pythonVersion.split(".").map(Number);
    if (major < 3 || (major === 3 && minor < 10))
      throw new Error(`${python} is Python ${pythonVersion}; the kit needs 3.10 or later`);
  });

  step(2, `fetch ${repo} at the pinned commits`, () => {
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(bare, "HEAD"))) {
      const init = run("git", ["init", "--quiet", "--bare", bare]);
      if (!init.ok) throw new Error(`git init failed${tail(init.out)}`);
    }
    const refspecs = branches.map((b) => `+refs/heads/${b.branch}:refs/heads/${b.branch}`);
    const fetched = run("git", ["--git-dir", bare, "fetch", "--quiet", repo, ...refspecs]);
    if (!fetched.ok) throw new Error(`git fetch failed${tail(fetched.out)}`);
    for (const pin of branches) {
      const full = run("git", [
        "--git-dir",
        bare,
        "rev-parse",
        "--verify",
        `${pin.commit}^{commit}`,
      ]);
      if (!full.ok || full.out !== pin.commit)
        throw new Error(
          `${repo} has no commit ${pin.commit} (the pin of branch ${pin.branch}): it may have been rewritten; see docs/conformance.md`,
        );
      const target = join(dir, pin.folder);
      rmSync(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      const archive = spawnSync("git", ["--git-dir", bare, "archive", pin.commit], {
        maxBuffer: 1 << 30,
      });
      if (archive.status !== 0) throw new Error(`git archive ${pin.commit} failed`);
      const untar = spawnSync("tar", ["-x", "-C", target], { input: archive.stdout });
      if (untar.status !== 0) throw new Error(`tar could not unpack ${pin.branch}`);
      writeFileSync(join(target, ".tck-commit"), `${pin.commit}\n`);
    }
  });

  step(3, "apply tck/tck-1.0-local.patch", () => {
    const patched = run(
      "git",
      ["apply", "-p1", "--whitespace=nowarn", join(vendored, "tck-1.0-local.patch")],
      join(dir, "tck-1.0"),
      // Not inside the repository the kit may sit in: there git apply would skip every path.
      { GIT_CEILING_DIRECTORIES: dir },
    );
    if (!patched.ok) throw new Error(`the patch does not apply to tck-1.0${tail(patched.out)}`);
  });

  step(4, "Python venv and tck/requirements.txt, from PyPI", () => {
    const venv = join(dir, "venv");
    rmSync(venv, { recursive: true, force: true });
    const made = run(python, ["-m", "venv", venv]);
    if (!made.ok) throw new Error(`${python} -m venv failed${tail(made.out)}`);
    const pip = run(join(venv, "bin", "python"), [
      "-m",
      "pip",
      "install",
      "--quiet",
      "--disable-pip-version-check",
      "-r",
      join(vendored, "requirements.txt"),
    ]);
    if (!pip.ok) {
      rmSync(venv, { recursive: true, force: true });
      throw new Error(`pip install failed (is PyPI reachable?)${tail(pip.out)}`);
    }
  });

  step(5, "driver and run-tck.sh", () => {
    rmSync(join(dir, "lib"), { recursive: true, force: true });
    cpSync(join(vendored, "lib"), join(dir, "lib"), { recursive: true });
    const runner = join(dir, "run-tck.sh");
    writeFileSync(
      runner,
      `#!/usr/bin/env bash
# Runs the official A2A conformance kit built by npm run tck:setup against a server:
#   run-tck.sh [--spec 1.0|0.3] [--transport jsonrpc,http_json] [--level must|should|all] URL
set -u
HERE="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
exec "$HERE/venv/bin/python" -u "$HERE/lib/tck_driver.py" "$@"
`,
    );
    chmodSync(runner, 0o755);
    const stamp: KitStamp = {
      commits: Object.fromEntries(branches.map((b) => [b.spec, b.commit])),
      python: pythonVersion,
    };
    writeFileSync(join(dir, "kit.json"), `${JSON.stringify(stamp, null, 2)}\n`);
  });

  console.log("tck:setup: 6. the ACTS corpus");
  for (const [corpus, from] of [[ACTS, process.env.A2A_ACTS_REPO || ACTS.repo]] as const) {
    const problem = fetchCorpus(corpus, from, dir);
    console.log(
      problem
        ? `tck:setup:    ${corpus.name}: not fetched (${problem}); npm run tck skips it unless ${corpus.variable} names a copy`
        : `tck:setup:    ${corpus.name}: ${corpus.folder}/ at ${corpus.commit.slice(0, 7)}`,
    );
  }

  console.log(
    `tck:setup: the kit is ready in ${dir} (${branches.map((b) => `${b.branch}@${b.commit.slice(0, 7)}`).join(", ")}); run npm run tck`,
  );
}

try {
  main();
} catch (error) {
  console.error(`tck:setup: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
