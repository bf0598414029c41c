/**
 * `npm run new-agent <name>`: writes agents/<name>/IDENTITY.md from the commented template
 * (scripts/agent-template.ts), checked by the same parser as the build. Run from the project
 * root (npm does). Refuses an invalid name or an agent that exists, with one line on stderr and
 * exit code 1; prints the file it wrote and what serves it.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseIdentity } from "../src/agents/identity.ts";
import { agentNameProblem, agentTemplate } from "./agent-template.ts";

function main(): number {
  const args = process.argv.slice(2);
  const name = args[0];
  const problem =
    args.length > 1 ? "usage: npm run new-agent <name> (one name)" : agentNameProblem(name);
  if (problem !== null || name === undefined) return fail(problem ?? "");
  const agents = join(process.cwd(), "agents");
  if (!existsSync(agents) || !existsSync(join(process.cwd(), "package.json")))
    return fail(`no agents/ directory in ${process.cwd()}: run it from the project root`);
  const file = `agents/${name}/IDENTITY.md`;
  if (existsSync(join(agents, name)))
    return fail(`${file}: agents/${name} exists already; choose another name or edit that file`);
  const text = agentTemplate(name);
  parseIdentity(file, text); // the template is valid: a failure here is a bug of the template
  mkdirSync(join(agents, name));
  writeFileSync(join(agents, name, "IDENTITY.md"), text);
  console.log(
    `${file}: created. Edit its description and prompt; npm run dev serves it at /agents/${name}/ (and reloads as you edit).`,
  );
  return 0;
}

function fail(message: string): number {
  console.error(`new-agent: ${message}`);
  return 1;
}

process.exitCode = main();
