/**
 * Turns a workspace file or snippet into a module the sandbox can load: TypeScript types are
 * stripped (sucrase; imports and exports stay ES modules), and every loop gets a guard call
 * (`__a2aGuard()`, acorn finds the loops) so a loop that never ends stops at the wall-clock limit
 * even where the runtime does not enforce the CPU limit (a local `wrangler dev`). Each module also
 * reports that it ran (`__a2aRan(path)`), which tells the verification gate what was executed.
 */
import { parse } from "acorn";
import { transform } from "sucrase";

const LOOPS = new Set([
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
]);

interface AstNode {
  type: string;
  start: number;
  end: number;
  body?: AstNode | AstNode[];
  [key: string]: unknown;
}

/** Source positions where text is inserted, collected for every loop body. */
function loopInsertions(node: AstNode, out: Array<[number, string]>): void {
  if (LOOPS.has(node.type) && node.body && !Array.isArray(node.body)) {
    const body = node.body;
    if (body.type === "BlockStatement") out.push([body.start + 1, "__a2aGuard();"]);
    else {
      out.push([body.start, "{__a2aGuard();"]);
      out.push([body.end, "}"]);
    }
  }
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const child of value)
        if (child && typeof child === "object" && typeof (child as AstNode).type === "string")
          loopInsertions(child as AstNode, out);
    } else if (value && typeof value === "object" && typeof (value as AstNode).type === "string")
      loopInsertions(value as AstNode, out);
  }
}

/** A module's JavaScript, or why it cannot be loaded (a syntax error, with its line). */
export type Transpiled = { ok: true; js: string } | { ok: false; error: string };

const isTypeScript = (path: string) => /\.(ts|mts|cts)$/.test(path);

const MODULE_SYNTAX = new Set([
  "ImportDeclaration",
  "ExportNamedDeclaration",
  "ExportDefaultDeclaration",
  "ExportAllDeclaration",
]);

/**
 * The JavaScript of `source` (named `path`), with loop guards and its ran-marker. With
 * `script: true`, code without imports or exports (a snippet) becomes the body of an async default
 * export, so it runs when the harness calls it rather than while the module is evaluated: the
 * runtime's clock stands still during module evaluation, so only then can the wall-clock guard
 * see the time pass.
 */
export function toModule(
  path: string,
  source: string,
  options: { script?: boolean } = {},
): Transpiled {
  let js = source;
  if (isTypeScript(path)) {
    try {
      js = transform(source, {
        transforms: ["typescript"],
        disableESTransforms: true,
        filePath: path,
      }).code;
    } catch (error) {
      return {
        ok: false,
        error: `${path}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  let ast: AstNode;
  try {
    ast = parse(js, { ecmaVersion: "latest", sourceType: "module" }) as unknown as AstNode;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `${path}: SyntaxError: ${message}` };
  }
  const insertions: Array<[number, string]> = [];
  loopInsertions(ast, insertions);
  insertions.sort((a, b) => b[0] - a[0]);
  for (const [at, text] of insertions) js = js.slice(0, at) + text + js.slice(at);
  const body = (ast.body ?? []) as AstNode[];
  if (options.script && !body.some((node) => MODULE_SYNTAX.has(node.type)))
    js = `export default async function (input) {${js}\n}`;
  // The module reports that it ran before its body (imports are hoisted anyway); on line 1, so
  // line numbers in stack traces stay the source's.
  return { ok: true, js: `__a2aRan(${JSON.stringify(path)});${js}` };
}
