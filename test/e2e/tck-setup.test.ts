/**
 * `npm run tck:setup` (scripts/tck-setup.ts) and the kit check of `npm run tck` (issue 29), with
 * no network: the kit is fetched from a local git repository whose two branches hold, on
 * 1.0-dev, the files the vendored patch (tck/tck-1.0-local.patch) changes as they are before it,
 * and the venv is made by a fake Python (a shell script that records how pip was called). The
 * pins point at that repository's commits (A2A_TCK_COMMITS). The corpora are looked for there
 * too (A2A_ACTS_REPO), which lacks them.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runNode, tempDir } from "./processes.ts";

const scratch = tempDir("a2a-tck-setup-test-");
const upstream = join(scratch, "a2a-tck.git");
const commits: Record<string, string> = {};

/** The files a patch changes, each as it is before the patch (its hunks' old lines). */
function preImages(patch: string): Map<string, string> {
  const files = new Map<string, string>();
  let file = "";
  for (const line of patch.split("\n")) {
    if (line.startsWith("+++ ")) {
      file = (line.slice(4).split("\t")[0] ?? "").split("/").slice(1).join("/");
      files.set(file, "");
    } else if (line.startsWith("--- ") || line.startsWith("diff ") || line.startsWith("@@"))
      continue;
    else if (file && (line.startsWith(" ") || line.startsWith("-")))
      files.set(file, `${files.get(file)}${line.slice(1)}\n`);
  }
  return files;
}

const git = (cwd: string, ...args: string[]) => {
  const run = spawnSync(
    "git",
    [
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.com",
      "-c",
      "init.defaultBranch=main",
      ...args,
    ],
    { cwd, encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout.trim();
};

/** A fake Python: `-c` prints its version, `-m venv` copies itself, `-m pip` logs its arguments. */
function fakePython(dir: string, options: { version?: string; pipExit?: number } = {}): string {
  const path = join(dir, "python");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path,
    `#!/bin/sh
if [ "$1" = "-c" ]; then echo "${options.version ?? "3.11.2"}"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "$*" >> "${join(dir, "pip.log")}"; echo "pip: no network" >&2; exit ${options.pipExit ?? 0}; fi
exit 3
`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** Runs a script of the repository with the pins of the local kit; its exit code and output. */
const runScript = (script: string, args: string[], env: Record<string, string> = {}) =>
  runNode(`scripts/${script}`, args, {
    env: {
      A2A_TCK_REPO: upstream,
      // The corpora are looked for there too (no network): it lacks their commits.
      A2A_ACTS_REPO: upstream,
      A2A_TCK_COMMITS: `1.0=${commits["1.0"]},0.3=${commits["0.3"]}`,
      ...env,
    },
  });

const setup = (args: string[], env: Record<string, string> = {}) =>
  runScript("tck-setup.ts", args, env);

beforeAll(() => {
  const work = join(scratch, "work");
  mkdirSync(work);
  git(work, "init", "--quiet");
  writeFileSync(join(work, "README.md"), "a2a-tck 0.3\n");
  git(work, "add", ".");
  git(work, "commit", "--quiet", "-m", "0.3");
  git(work, "branch", "-m", "0.3.x");
  commits["0.3"] = git(work, "rev-parse", "HEAD");
  git(work, "checkout", "--quiet", "-b", "1.0-dev");
  const patch = readFileSync(join(ROOT, "tck", "tck-1.0-local.patch"), "utf8");
  for (const [file, content] of preImages(patch)) {
    mkdirSync(dirname(join(work, file)), { recursive: true });
    writeFileSync(join(work, file), content);
  }
  git(work, "add", ".");
  git(work, "commit", "--quiet", "-m", "1.0");
  commits["1.0"] = git(work, "rev-parse", "HEAD");
  // A later commit on the branch: the pin, not the branch's head, is what gets built.
  writeFileSync(join(work, "LATER.md"), "after the pin\n");
  git(work, "add", ".");
  git(work, "commit", "--quiet", "-m", "later");
  git(scratch, "clone", "--quiet", "--bare", work, upstream);
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("npm run tck:setup: its command line", () => {
  it("--help prints the usage on stdout, exit 0", async () => {
    const run = await setup(["--help"]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^usage: npm run tck:setup \[-- options\]\n/);
    expect(run.out).toContain("--python <exe>");
  });

  it("an unknown option: one line and the usage, exit 2", async () => {
    const run = await setup(["--frob"]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^tck:setup: unknown option --frob\n\nusage: npm run tck:setup/);
  });

  it("an option without its value, or an argument: one line and the usage, exit 2", async () => {
    const missing = await setup(["--dir"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^tck:setup: --dir needs a value\n\nusage:/);
    const extra = await setup(["now"]);
    expect(extra.code).toBe(2);
    expect(extra.err).toMatch(/^tck:setup: unexpected argument now\n\nusage:/);
  });
});

describe("npm run tck:setup builds the kit", () => {
  const kit = join(scratch, "kit");
  const bin = join(scratch, "py");
  let run: { code: number; out: string; err: string };

  beforeAll(async () => {
    run = await setup(["--dir", kit, "--python", fakePython(bin)]);
  });

  it("from local sources: each branch at its pinned commit, not the branch's head", () => {
    expect(run.code, run.out + run.err).toBe(0);
    expect(readFileSync(join(kit, "tck-1.0", ".tck-commit"), "utf8")).toBe(`${commits["1.0"]}\n`);
    expect(readFileSync(join(kit, "tck-0.3", ".tck-commit"), "utf8")).toBe(`${commits["0.3"]}\n`);
    expect(existsSync(join(kit, "tck-1.0", "LATER.md"))).toBe(false);
    expect(readFileSync(join(kit, "tck-0.3", "README.md"), "utf8")).toBe("a2a-tck 0.3\n");
    expect(run.out).toContain(
      `tck:setup: the kit is ready in ${kit} (1.0-dev@${commits["1.0"]?.slice(0, 7)}, 0.3.x@${commits["0.3"]?.slice(0, 7)}); run npm run tck\n`,
    );
  });

  it("says the ACTS corpus was not fetched, and builds the kit all the same", () => {
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /ACTS: not fetched \(.* has no commit dbcabfb\); npm run tck skips it unless A2A_ACTS_DIR names a copy/,
    );
    expect(run.out).not.toMatch(/a2a-jcs-v01/);
    expect(existsSync(join(kit, "acts"))).toBe(false);
  });

  it("with the vendored patch applied to tck-1.0", () => {
    const server = readFileSync(join(kit, "tck-1.0", "tck", "webhook", "server.py"), "utf8");
    expect(server).toContain('host: str = "127.0.0.1"  # local patch');
    expect(server).not.toContain('host: str = "0.0.0.0"');
  });

  it("with a venv holding tck/requirements.txt, the driver and run-tck.sh", () => {
    expect(existsSync(join(kit, "venv", "bin", "python"))).toBe(true);
    expect(readFileSync(join(bin, "pip.log"), "utf8")).toContain(
      `-m pip install --quiet --disable-pip-version-check -r ${join(ROOT, "tck", "requirements.txt")}`,
    );
    expect(existsSync(join(kit, "lib", "tck_driver.py"))).toBe(true);
    expect(statSync(join(kit, "run-tck.sh")).mode & 0o111).not.toBe(0);
    expect(JSON.parse(readFileSync(join(kit, "kit.json"), "utf8"))).toEqual({
      commits: { "1.0": commits["1.0"], "0.3": commits["0.3"] },
      python: "3.11.2",
    });
  });

  it("which npm run tck accepts (--check)", async () => {
    const checked = await runScript("tck.ts", ["--check"], { A2A_TCK_DIR: kit });
    expect(checked.code, checked.err).toBe(0);
    expect(checked.out).toContain(`tck: the kit in ${kit} is ready`);
  });
});

describe("npm run tck refuses a kit that is not the pinned one, ready", () => {
  const refused = (problem: string) =>
    `tck: ${problem}: run npm run tck:setup (it fetches the kit at the pinned commits and makes its Python venv), then npm run tck again\n`;

  it("a missing kit", async () => {
    const dir = join(scratch, "none");
    const run = await runScript("tck.ts", ["--check"], { A2A_TCK_DIR: dir });
    expect(run.code).toBe(2);
    expect(run.err).toBe(refused(`no conformance kit in ${dir}`));
  });

  it("a kit of another commit, or without its venv", async () => {
    const kit = join(scratch, "other");
    const built = await setup(["--dir", kit, "--python", fakePython(join(scratch, "py2"))]);
    expect(built.code).toBe(0);
    writeFileSync(join(kit, "tck-0.3", ".tck-commit"), "0123456789abcdef\n");
    const other = await runScript("tck.ts", ["--check"], { A2A_TCK_DIR: kit });
    expect(other.code).toBe(2);
    expect(other.err).toBe(
      refused(
        `the conformance kit in ${kit} has 0.3.x at 0123456, not the pinned ${commits["0.3"]?.slice(0, 7)}`,
      ),
    );
    writeFileSync(join(kit, "tck-0.3", ".tck-commit"), `${commits["0.3"]}\n`);
    rmSync(join(kit, "venv"), { recursive: true });
    const venvless = await runScript("tck.ts", ["--check"], { A2A_TCK_DIR: kit });
    expect(venvless.code).toBe(2);
    expect(venvless.err).toBe(refused(`the conformance kit in ${kit} has no Python venv`));
  });
});

describe("npm run tck:setup says which step failed, and why (exit 1)", () => {
  it("no Python", async () => {
    const run = await setup(["--dir", join(scratch, "k1"), "--python", join(scratch, "no-python")]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `tck:setup: step 1 (git and Python) failed: ${join(scratch, "no-python")} was not found: install Python 3.10 or later with its venv module (Debian: apt-get install python3 python3-venv), or name one with --python\n`,
    );
  });

  it("a Python too old", async () => {
    const python = fakePython(join(scratch, "py-old"), { version: "3.8.10" });
    const run = await setup(["--dir", join(scratch, "k2"), "--python", python]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `tck:setup: step 1 (git and Python) failed: ${python} is Python 3.8.10; the kit needs 3.10 or later\n`,
    );
  });

  it("a pinned commit the repository lacks", async () => {
    const missing = "f".repeat(40);
    const run = await setup(
      ["--dir", join(scratch, "k3"), "--python", fakePython(join(scratch, "py3"))],
      { A2A_TCK_COMMITS: `1.0=${missing}` },
    );
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `tck:setup: step 2 (fetch ${upstream} at the pinned commits) failed: ${upstream} has no commit ${missing} (the pin of branch 1.0-dev): it may have been rewritten; see docs/conformance.md\n`,
    );
  });

  it("pip failing: the step, the reason, pip's last lines; no venv left half made", async () => {
    const kit = join(scratch, "k4");
    const python = fakePython(join(scratch, "py4"), { pipExit: 1 });
    const run = await setup(["--dir", kit, "--python", python]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      "tck:setup: step 4 (Python venv and tck/requirements.txt, from PyPI) failed: pip install failed (is PyPI reachable?)\n    pip: no network\n",
    );
    expect(existsSync(join(kit, "venv"))).toBe(false);
    expect((await runScript("tck.ts", ["--check"], { A2A_TCK_DIR: kit })).code).toBe(2);
  });
});
