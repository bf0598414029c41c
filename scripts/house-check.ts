/**
 * The house's measurable rules, read from `src/` with the TypeScript parser (nothing is run):
 * - the folders' import graph has no cycle, and the faces that are peers of A2A (`mcp-server/`,
 *   `ag-ui/`) import nothing from `a2a/`;
 * - type assertions (`x as T`, `<T>x`; `as const` aside) stay within {@link MAX_ASSERTIONS};
 * - no function is longer than {@link MAX_FUNCTION_LINES} lines in the folders that carry a task
 *   ({@link NO_LONG_FUNCTIONS}), and at most {@link MAX_LONG_FUNCTIONS} in all of `src/` (tables:
 *   a route list, an embedded module's source).
 * `npm run lint` runs it; `--report` prints every long function and the assertions per folder.
 * Exits 1 naming each broken rule.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

/** At most this many type assertions in `src/`. */
export const MAX_ASSERTIONS = 130;
/** A function longer than this many lines is long. */
export const MAX_FUNCTION_LINES = 80;
/** At most this many long functions in all of `src/`. */
export const MAX_LONG_FUNCTIONS = 6;
/** Folders where no function may be long. */
export const NO_LONG_FUNCTIONS = ["loop", "task", "gateway"];
/** Folders that must not import from a folder (peers of it). */
const FORBIDDEN: Record<string, string[]> = { "mcp-server": ["a2a"], "ag-ui": ["a2a"] };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The top folder of `src/` a file is in ("." for files at its root). */
const folderOf = (file: string) => {
  const parts = relative(src, file).split("/");
  return parts.length > 1 ? (parts[0] ?? ".") : ".";
};

interface FileFacts {
  assertions: number;
  long: string[];
  imports: string[];
}

function isAssertion(node: ts.Node): boolean {
  if (!ts.isAsExpression(node) && !ts.isTypeAssertionExpression(node)) return false;
  const type = node.type;
  return !(ts.isTypeReferenceNode(type) && type.typeName.getText() === "const");
}

function functionName(node: ts.Node, file: ts.SourceFile): string {
  const named = (node as { name?: ts.Node }).name;
  if (named) return named.getText(file);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(file);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(file);
  return "(anonymous)";
}

function factsOf(path: string): FileFacts {
  const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const facts: FileFacts = { assertions: 0, long: [], imports: [] };
  const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    if (isAssertion(node)) facts.assertions += 1;
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = lineOf(node.getStart(file));
      const lines = lineOf(node.getEnd()) - start + 1;
      if (lines > MAX_FUNCTION_LINES)
        facts.long.push(
          `${relative(root, path)}:${start} ${functionName(node, file)} (${lines} lines)`,
        );
    }
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const spec = (node.moduleSpecifier as ts.StringLiteral).text;
      if (spec.startsWith(".")) facts.imports.push(resolve(dirname(path), spec));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return facts;
}

/** The cycles of a graph of folders, each as its folders in order. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const walk = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) walk(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) walk(node);
  return found;
}

function main(): void {
  const report = process.argv.includes("--report");
  const problems: string[] = [];
  const graph = new Map<string, Set<string>>();
  const byFolder = new Map<string, number>();
  let assertions = 0;
  const long: string[] = [];
  for (const path of sources(src)) {
    const facts = factsOf(path);
    const from = folderOf(path);
    assertions += facts.assertions;
    byFolder.set(from, (byFolder.get(from) ?? 0) + facts.assertions);
    long.push(...facts.long);
    for (const target of facts.imports) {
      if (!target.startsWith(`${src}/`)) continue;
      const to = folderOf(target);
      if (to === from || from === "." || to === ".") continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)?.add(to);
      if (FORBIDDEN[from]?.includes(to))
        problems.push(`${relative(root, path)} imports from src/${to}/ (a peer face)`);
    }
  }
  for (const cycle of cycles(graph))
    problems.push(`folders import in a circle: ${cycle.join(" -> ")}`);
  if (assertions > MAX_ASSERTIONS)
    problems.push(`${assertions} type assertions in src/ (at most ${MAX_ASSERTIONS})`);
  const inTask = long.filter((l) => NO_LONG_FUNCTIONS.some((f) => l.startsWith(`src/${f}/`)));
  for (const l of inTask) problems.push(`a function over ${MAX_FUNCTION_LINES} lines: ${l}`);
  if (long.length > MAX_LONG_FUNCTIONS)
    problems.push(
      `${long.length} functions over ${MAX_FUNCTION_LINES} lines in src/ (at most ${MAX_LONG_FUNCTIONS})`,
    );
  if (report || problems.length > 0) {
    console.log(`type assertions: ${assertions}`);
    for (const [folder, n] of [...byFolder].sort((a, b) => b[1] - a[1]))
      if (n > 0) console.log(`  ${folder} ${n}`);
    console.log(`functions over ${MAX_FUNCTION_LINES} lines: ${long.length}`);
    for (const l of long) console.log(`  ${l}`);
  }
  if (problems.length > 0) {
    console.error(
      `\nhouse-check: ${problems.length} rule(s) broken\n${problems.map((p) => `  ${p}`).join("\n")}`,
    );
    process.exit(1);
  }
}

main();
