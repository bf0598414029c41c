/**
 * Agent Skills (the published format: a folder `<skill>/` holding a SKILL.md, YAML frontmatter
 * with `name` and `description` and a Markdown body, and files beside it): the sources a skill
 * is read from, their limits, and the parse of one skill. Pure (no I/O): the build reads the
 * folders (scripts/agent-sources.ts), an admin's upload carries them as JSON, and both go
 * through {@link parseSkill}, so they are held to the same rules in the same words
 * (`<file>:<line>:<column>: frontmatter.<field>: <reason>`).
 */
import { z } from "zod";
import { lazy } from "../utils/lazy.ts";
import { fieldError, readFrontmatter } from "./frontmatter.ts";
import { IdentityError } from "./identity-error.ts";

/** A file beside a SKILL.md: its path in the skill's folder, its text (null: not text), its size. */
export interface SkillFileSource {
  readonly path: string;
  readonly text: string | null;
  readonly bytes: number;
}

/** A skill as read: its SKILL.md (`file`: where it is, for errors) and the files beside it. */
export interface SkillSource {
  readonly file: string;
  readonly text: string;
  readonly files: ReadonlyArray<SkillFileSource>;
}

/** A valid skill: what the prompt lists (name, description), what loading it gives. */
export interface SkillFolder {
  name: string;
  description: string;
  /** The SKILL.md body (the instructions), given when the model loads the skill. */
  body: string;
  /** The files beside SKILL.md, read on demand. */
  files: ReadonlyArray<SkillFileSource>;
  /** Where its SKILL.md is (`agents/<agent>/skills/<skill>/SKILL.md`, `skills/<skill>/...`). */
  file: string;
}

/** Bounds a skill is held to, at build and at upload. */
export const SKILL_LIMITS = {
  /** Skills an agent has (its own and the shared ones). */
  skills: 64,
  /** Characters of a SKILL.md. */
  skillChars: 100_000,
  /** Files beside a SKILL.md. */
  files: 200,
  /** Bytes of one file beside it. */
  fileBytes: 512 * 1024,
  /** Characters of a file's path in the skill's folder. */
  pathChars: 256,
} as const;

/** A skill's name, as the format has it: lower-case letters, digits, single hyphens, at most 64. */
export const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$/;

/** The folder a SKILL.md is in (`.../<skill>/SKILL.md`, uploaded or not), or null. */
export function skillDirectory(file: string): string | null {
  return /(?:^|\/)([^/]+)\/SKILL\.md(?: \(uploaded\))?$/.exec(file)?.[1] ?? null;
}

/** Why a path beside a SKILL.md is refused, or null: relative, plain segments, no `..`. */
export function skillPathProblem(path: string): string | null {
  if (path.length === 0 || path.length > SKILL_LIMITS.pathChars)
    return `a path of 1 to ${SKILL_LIMITS.pathChars} characters`;
  const segments = path.split("/");
  if (segments.some((s) => s === "" || s === "." || s === ".." || !/^[\w.@+-]+$/.test(s)))
    return "a relative path of plain segments (letters, digits, . _ - @ +), no '..'";
  if (path === "SKILL.md") return "a file beside SKILL.md, not SKILL.md itself";
  return null;
}

const nameError =
  "expected a skill name: lower-case letters, digits and single hyphens, at most 64, not starting or ending with '-'";
const text = (max: number) => {
  const error = `expected a non-empty string of at most ${max} characters`;
  return z.string({ error }).trim().min(1, { error }).max(max, { error });
};

/**
 * The frontmatter keys the format defines; other keys (another runtime's extensions) are left
 * alone. `allowed-tools` is read and grants nothing: the agent's frontmatter decides its tools.
 * Built on first use.
 */
const skillFrontmatterSchema = lazy(() =>
  z.object({
    name: z.string({ error: nameError }).regex(SKILL_NAME, { error: nameError }),
    description: text(1024),
    license: text(500).optional(),
    compatibility: text(500).optional(),
    metadata: z
      .record(z.string(), z.string(), { error: "expected a mapping of strings to strings" })
      .optional(),
    "allowed-tools": z
      .union([z.string(), z.array(z.string())], {
        error: "expected a space-separated string or a list of tool names",
      })
      .optional(),
  }),
);

/** Parses and checks one skill; throws an IdentityError naming the file, line and field. */
export function parseSkill(source: SkillSource): SkillFolder {
  const { file } = source;
  if (source.text.length > SKILL_LIMITS.skillChars)
    throw new IdentityError(file, null, `longer than ${SKILL_LIMITS.skillChars} characters`);
  const frontmatter = readFrontmatter(file, source.text);
  const parsed = skillFrontmatterSchema().safeParse(frontmatter.raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw fieldError(file, frontmatter, issue?.path ?? [], issue?.message ?? "invalid");
  }
  const dir = skillDirectory(file);
  if (dir !== null && parsed.data.name !== dir)
    throw fieldError(
      file,
      frontmatter,
      ["name"],
      `"${parsed.data.name}" must equal the folder name "${dir}"`,
    );
  checkFiles(file, source.files);
  return {
    name: parsed.data.name,
    description: parsed.data.description,
    body: frontmatter.body,
    files: [...source.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    file,
  };
}

function checkFiles(file: string, files: ReadonlyArray<SkillFileSource>): void {
  if (files.length > SKILL_LIMITS.files)
    throw new IdentityError(file, "files", `more than ${SKILL_LIMITS.files} files beside SKILL.md`);
  const seen = new Set<string>();
  for (const entry of files) {
    const problem = skillPathProblem(entry.path);
    if (problem !== null)
      throw new IdentityError(file, "files", `"${entry.path.slice(0, 300)}": expected ${problem}`);
    if (seen.has(entry.path))
      throw new IdentityError(file, "files", `"${entry.path}" is given twice`);
    seen.add(entry.path);
    if (entry.bytes > SKILL_LIMITS.fileBytes)
      throw new IdentityError(
        file,
        "files",
        `"${entry.path}" is ${entry.bytes} bytes; a file beside SKILL.md is at most ${SKILL_LIMITS.fileBytes}`,
      );
  }
}

/**
 * An agent's skills: its own, then the shared ones it does not shadow (an agent's skill of a
 * shared skill's name replaces it), at most {@link SKILL_LIMITS.skills}.
 */
export function skillsOf(
  own: ReadonlyArray<SkillFolder>,
  shared: ReadonlyArray<SkillFolder>,
  file: string,
): SkillFolder[] {
  const names = new Set(own.map((skill) => skill.name));
  const all = [...own, ...shared.filter((skill) => !names.has(skill.name))];
  if (all.length > SKILL_LIMITS.skills)
    throw new IdentityError(file, "skills", `more than ${SKILL_LIMITS.skills} skills`);
  return all;
}

/** Skills as an upload carries them: skill name -> (path in its folder -> text), SKILL.md included. */
export type SkillFiles = Record<string, Record<string, string>>;

/**
 * The sources of skills given as {@link SkillFiles}, each at `<base>/<skill>/SKILL.md (uploaded)`
 * (`base`: `agents/<agent>/skills`). A folder without a SKILL.md is an IdentityError.
 */
export function skillSourcesOf(base: string, skills: SkillFiles): SkillSource[] {
  const encoder = new TextEncoder();
  return Object.entries(skills).map(([name, files]) => {
    const file = `${base}/${name}/SKILL.md (uploaded)`;
    const text = files["SKILL.md"];
    if (text === undefined)
      throw new IdentityError(file, null, "not given: a skill needs a SKILL.md");
    return {
      file,
      text,
      files: Object.entries(files)
        .filter(([path]) => path !== "SKILL.md")
        .map(([path, content]) => ({ path, text: content, bytes: encoder.encode(content).length })),
    };
  });
}

/** Skills as {@link SkillFiles} (the files that are text), for an upload's round trip. */
export function skillFilesOf(sources: readonly SkillSource[]): SkillFiles {
  return Object.fromEntries(
    sources.map((source) => [
      skillDirectory(source.file) ?? source.file,
      Object.fromEntries([
        ["SKILL.md", source.text],
        ...source.files.flatMap((f) => (f.text === null ? [] : [[f.path, f.text]])),
      ]),
    ]),
  );
}
