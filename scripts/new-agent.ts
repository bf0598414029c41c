/**
 * `npm run new-agent -- <name> [--tool <tool>] [--skill <skill>]`: writes agents/<name>/IDENTITY.md
 * from the commented template (scripts/agent-template.ts), checked by the same parser as the
 * build; with `--tool`, a tool in code that calls an HTTP API with a secret
 * (agents/<name>/tools/<tool>.ts) and the grant of its secrets in the IDENTITY.md; with
 * `--skill`, an Agent Skill to fill in (agents/<name>/skills/<skill>/SKILL.md). Run from the
 * project root (npm does). Refuses a wrong command line, an invalid name or an agent that exists,
 * with one line on stderr and exit code 1; prints the files it wrote and what serves them.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseIdentity } from "../src/agents/identity.ts";
import { parseSkill } from "../src/agents/skill-folders.ts";
import {
  agentNameProblem,
  agentTemplate,
  skillNameProblem,
  skillTemplate,
  toolNameProblem,
  toolSecrets,
  toolTemplate,
} from "./agent-template.ts";

const USAGE = "usage: npm run new-agent -- <name> [--tool <tool>] [--skill <skill>]";

/** The command line: the name and the options, or what is wrong with it. */
function parseArgs(
  args: string[],
): { name: string; tool?: string; skill?: string } | { problem: string } {
  const options: Record<string, string> = {};
  const names: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--tool" || arg === "--skill") {
      const value = args[++i];
      if (value === undefined || value.startsWith("--") || arg.slice(2) in options)
        return { problem: USAGE };
      options[arg.slice(2)] = value;
    } else if (arg.startsWith("--")) return { problem: `unknown option ${arg}; ${USAGE}` };
    else names.push(arg);
  }
  const name = names[0];
  const problem =
    names.length > 1
      ? `${USAGE} (one name)`
      : (agentNameProblem(name) ??
        (options.tool === undefined ? null : toolNameProblem(options.tool)) ??
        (options.skill === undefined ? null : skillNameProblem(options.skill)));
  if (problem !== null || name === undefined) return { problem: problem ?? USAGE };
  return { name, ...options };
}

function main(): number {
  const parsed = parseArgs(process.argv.slice(2));
  if ("problem" in parsed) return fail(parsed.problem);
  const { name, tool, skill } = parsed;
  const agents = join(process.cwd(), "agents");
  if (!existsSync(agents) || !existsSync(join(process.cwd(), "package.json")))
    return fail(`no agents/ directory in ${process.cwd()}: run it from the project root`);
  const file = `agents/${name}/IDENTITY.md`;
  if (existsSync(join(agents, name)))
    return fail(`${file}: agents/${name} exists already; choose another name or edit that file`);
  const files = new Map<string, string>([[file, agentTemplate(name, tool ? { tool } : {})]]);
  if (tool) files.set(`agents/${name}/tools/${tool}.ts`, toolTemplate(name, tool));
  if (skill) files.set(`agents/${name}/skills/${skill}/SKILL.md`, skillTemplate(skill));
  // The templates are valid: a failure here is a bug of the templates.
  parseIdentity(file, files.get(file) ?? "", { tools: tool ? [tool] : [] });
  if (skill)
    parseSkill({
      file: `agents/${name}/skills/${skill}/SKILL.md`,
      text: skillTemplate(skill),
      files: [],
    });
  for (const [path, text] of files) {
    mkdirSync(join(process.cwd(), path, ".."), { recursive: true });
    writeFileSync(join(process.cwd(), path), text);
  }
  console.log(`${[...files.keys()].join(", ")}: created. ${nextSteps(name, tool)}`);
  return 0;
}

/** What to do next, in a line or two. */
function nextSteps(name: string, tool: string | undefined): string {
  const serve = `Edit its description and prompt; npm run dev serves it at /agents/${name}/ (and reloads as you edit).`;
  if (!tool) return serve;
  const { key, url } = toolSecrets(tool);
  return `${serve} The tool ${tool} needs ${url} and ${key}: put them in .dev.vars, and for a deployment run npx wrangler secret put ${key}.`;
}

function fail(message: string): number {
  console.error(`new-agent: ${message}`);
  return 1;
}

process.exitCode = main();
