/**
 * The agents' folders as the build reads them, and the shared folder: `agents/<name>/IDENTITY.md`;
 * its tools in code, each `*.ts` file directly in `agents/<name>/tools/` (the tool is named as the
 * file; subfolders hold their helpers); its Agent Skills, each folder of `agents/<name>/skills/`
 * that holds a SKILL.md, with every file beside it (text, or its size when it is not text); and
 * `shared/tools/`, `shared/skills/` the same way, for every agent. Names starting with `.` are
 * skipped. Checking an agent ({@link checkAgent}) parses it as the Worker will
 * (src/agents/entry-parse.ts), so `npm run agents`, `npm run dev` and the tests that walk
 * agents/ agree on what is valid. Node only; reads files, writes none.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { EntryProblem, IdentityEntry, SharedExtensions } from "../src/agents/agent-entry.ts";
import { parseEntry, parseShared, problemError } from "../src/agents/entry-parse.ts";
import type { AgentDefinition } from "../src/agents/identity.ts";
import {
  SKILL_LIMITS,
  type SkillFileSource,
  type SkillSource,
} from "../src/agents/skill-folders.ts";
import { customToolNameProblem } from "../src/agents/tool-names.ts";

/** A tool in code: its name (the file's) and its repository-relative path. */
export interface ToolFile {
  name: string;
  file: string;
}

/** One agent's folder as read. */
export interface AgentFolder {
  /** The directory's name (the agent's name when its file is valid). */
  name: string;
  /** `agents/<name>/IDENTITY.md`. */
  file: string;
  /** Its text, or null when the directory has none. */
  text: string | null;
  tools: ToolFile[];
  skills: SkillSource[];
}

/** The shared folder as read. */
export interface SharedFolder {
  tools: ToolFile[];
  skills: SkillSource[];
}

const visible = (name: string) => !name.startsWith(".");
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function entriesOf(dir: string) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => visible(e.name))
    .sort((a, b) => byName(a.name, b.name));
}

/** Every directory under `root`/agents/, read. */
export function readAgentFolders(root: string): AgentFolder[] {
  return entriesOf(join(root, "agents"))
    .filter((e) => e.isDirectory())
    .map((e) => readAgentFolder(root, e.name));
}

/** The folder of agent `name` under `root`/agents/. */
export function readAgentFolder(root: string, name: string): AgentFolder {
  const file = `agents/${name}/IDENTITY.md`;
  const path = join(root, file);
  return {
    name,
    file,
    text: existsSync(path) ? readFileSync(path, "utf8") : null,
    tools: toolFiles(root, `agents/${name}/tools`),
    skills: skillSources(root, `agents/${name}/skills`),
  };
}

/** `root`/shared/: the tools and skills every agent may use. */
export function readSharedFolder(root: string): SharedFolder {
  return { tools: toolFiles(root, "shared/tools"), skills: skillSources(root, "shared/skills") };
}

/** The tools in code of the folder `dir` (repository-relative): its `*.ts` files, not `.d.ts`. */
export function toolFiles(root: string, dir: string): ToolFile[] {
  return entriesOf(join(root, dir))
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => ({ name: e.name.slice(0, -".ts".length), file: `${dir}/${e.name}` }));
}

/** The skills of the folder `dir` (repository-relative): its folders that hold a SKILL.md. */
export function skillSources(root: string, dir: string): SkillSource[] {
  return entriesOf(join(root, dir))
    .filter((e) => e.isDirectory() && existsSync(join(root, dir, e.name, "SKILL.md")))
    .map((e) => {
      const folder = `${dir}/${e.name}`;
      return {
        file: `${folder}/SKILL.md`,
        text: readFileSync(join(root, folder, "SKILL.md"), "utf8"),
        files: filesBeside(join(root, folder)),
      };
    });
}

/** Every file under a skill's folder but its SKILL.md, at most one past the limit. */
function filesBeside(folder: string): SkillFileSource[] {
  const out: SkillFileSource[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of entriesOf(dir)) {
      if (out.length > SKILL_LIMITS.files) return;
      const path = `${prefix}${entry.name}`;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full, `${path}/`);
      else if (entry.isFile() && path !== "SKILL.md") out.push(readBeside(full, path));
    }
  };
  walk(folder, "");
  return out;
}

const strict = new TextDecoder("utf-8", { fatal: true });

/** A file beside a SKILL.md: its text when it is UTF-8 without NUL (and within the limit). */
function readBeside(full: string, path: string): SkillFileSource {
  const bytes = statSync(full).size;
  if (bytes > SKILL_LIMITS.fileBytes) return { path, text: null, bytes };
  try {
    const text = strict.decode(readFileSync(full));
    return { path, text: text.includes("\0") ? null : text, bytes };
  } catch {
    return { path, text: null, bytes };
  }
}

/** The problem of a tool file's name (see customToolNameProblem), or null. */
export function toolNameProblem(tool: ToolFile): EntryProblem | null {
  const problem = customToolNameProblem(tool.name);
  return problem === null ? null : { file: tool.file, reason: `the file's name: ${problem}` };
}

/** The shared set of `shared`, with the problems the build found (by file). */
export function sharedExtensions(
  shared: SharedFolder,
  problems: ReadonlyMap<string, EntryProblem> = new Map(),
): SharedExtensions {
  return {
    skills: shared.skills,
    tools: shared.tools.map((tool) => {
      const problem = problems.get(tool.file) ?? toolNameProblem(tool);
      return problem ? { ...tool, problem } : tool;
    }),
  };
}

/** The entry of an agent's folder, with the first problem the build found in its tools. */
export function entryOf(
  folder: AgentFolder,
  problems: ReadonlyMap<string, EntryProblem> = new Map(),
): IdentityEntry {
  const problem = folder.tools
    .map((tool) => problems.get(tool.file) ?? toolNameProblem(tool))
    .find((p) => p !== null && p !== undefined);
  return {
    file: folder.file,
    text: folder.text ?? "",
    tools: folder.tools.map((t) => t.name),
    skills: folder.skills,
    ...(problem ? { problem } : {}),
  };
}

/**
 * The agent as the Worker will serve it; throws the IdentityError that keeps it from being
 * served (its IDENTITY.md, a skill, a tool's name or `problems`, a shared file it gets).
 */
export function checkAgent(
  folder: AgentFolder,
  shared: SharedFolder,
  problems: ReadonlyMap<string, EntryProblem> = new Map(),
): AgentDefinition {
  if (folder.text === null)
    throw problemError({
      file: folder.file,
      reason: "not found; every directory under agents/ needs an IDENTITY.md",
    });
  return parseEntry(entryOf(folder, problems), parseShared(sharedExtensions(shared, problems)));
}
