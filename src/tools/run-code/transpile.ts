/**
 * Turns a workspace file or snippet into a module the sandbox can load, in which no user code runs
 * while the module is evaluated (the runtime's clock stands still then, so a time limit could not
 * see a loop there): the module only exports a function that the harness calls from its request
 * handler, with `require`, `module` and `exports` (CommonJS: sucrase rewrites imports and exports,
 * and strips TypeScript types, keeping line numbers). A snippet without imports or exports is the
 * body of an async function of `input` instead, so it may `await` and `return`.
 *
 * Every loop iteration and every function entry calls the guard (acorn finds them) under a name
 * with a per-run random part the code cannot know; the module reports that it ran before its
 * body, which tells the verification gate what was executed. Everything the transpiler adds goes
 * on the module's first line, so stack traces keep the source's line numbers.
 */
import { parse } from "acorn";
import { transform } from "sucrase";
import type { GuardNames, Transpiled } from "../../loop/contracts.ts";
import { GUARD_MODULE } from "./guard-module.ts";

const LOOPS = new Set([
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

const MODULE_SYNTAX = new Set([
  "ImportDeclaration",
  "ExportNamedDeclaration",
  "ExportDefaultDeclaration",
  "ExportAllDeclaration",
]);

/** A node of acorn's tree, as far as the walks here read it. */
interface AstNode {
  type: string;
  start: number;
  end: number;
  body?: unknown;
  await?: boolean;
}

/** Whether `value` is a node of acorn's tree (its nodes, and only they, have a string `type`). */
function isNode(value: unknown): value is AstNode {
  return (
    typeof value === "object" && value !== null && "type" in value && typeof value.type === "string"
  );
}

/** The nodes directly under `node`: its fields that are nodes, and the nodes in its lists. */
function childrenOf(node: AstNode): AstNode[] {
  return Object.values(node)
    .flatMap((value: unknown) => (Array.isArray(value) ? value : [value]))
    .filter(isNode);
}

/** Source positions where the guard call goes: each loop body and each function body. */
function guardInsertions(node: AstNode, guard: string, out: Array<[number, string]>): void {
  const body = node.body;
  if (isNode(body) && (LOOPS.has(node.type) || FUNCTIONS.has(node.type))) {
    if (body.type === "BlockStatement") out.push([body.start + 1, `${guard}();`]);
    else if (node.type === "ArrowFunctionExpression") {
      out.push([body.start, `(${guard}(),`]);
      out.push([body.end, ")"]);
    } else {
      out.push([body.start, `{${guard}();`]);
      out.push([body.end, "}"]);
    }
  }
  for (const child of childrenOf(node)) guardInsertions(child, guard, out);
}

/** Whether `program` awaits outside any function (top-level await). */
function awaitsAtTopLevel(node: AstNode): boolean {
  if (FUNCTIONS.has(node.type)) return false;
  if (node.type === "AwaitExpression" || (node.type === "ForOfStatement" && node.await === true))
    return true;
  return childrenOf(node).some(awaitsAtTopLevel);
}

const isTypeScript = (path: string) => /\.(ts|mts|cts)$/.test(path);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The module of `source` (named `path`): its default export is `function (require, module,
 * exports)`, which runs the code. With `script: true`, code without imports or exports (a
 * snippet) is the body of `exports.default = async function (input)`.
 */
export function toModule(
  path: string,
  source: string,
  names: GuardNames,
  options: { script?: boolean } = {},
): Transpiled {
  type Step<T> = { ok: true; value: T } | { ok: false; error: string };
  const step = <T>(prefix: string, run: () => T): Step<T> => {
    try {
      return { ok: true, value: run() };
    } catch (error) {
      return { ok: false, error: `${path}: ${prefix}${message(error)}` };
    }
  };
  const sucrase = (js: string, transforms: Array<"typescript" | "imports">) =>
    step("", () => transform(js, { transforms, disableESTransforms: true, filePath: path }).code);
  const acorn = (js: string, allowReturnOutsideFunction: boolean) =>
    step("SyntaxError: ", () => {
      const options = { ecmaVersion: "latest", sourceType: "module" } as const;
      return parse(js, { ...options, allowReturnOutsideFunction });
    });

  const stripped = isTypeScript(path)
    ? sucrase(source, ["typescript"])
    : { ok: true as const, value: source };
  if (!stripped.ok) return stripped;
  const ast = acorn(stripped.value, options.script === true);
  if (!ast.ok) return ast;
  const isModule = ast.value.body.some((n) => MODULE_SYNTAX.has(n.type));
  const script = options.script === true && !isModule;
  if (!script && awaitsAtTopLevel(ast.value))
    return {
      ok: false,
      error: `${path}: top-level await is not supported here; put the code in an async function (export default async function main() { ... })`,
    };
  const code = script
    ? {
        ok: true as const,
        value: `exports.default = async function (input) {${stripped.value}\n};`,
      }
    : sucrase(stripped.value, ["imports"]);
  if (!code.ok) return code;
  const body = acorn(code.value, true);
  if (!body.ok) return body;
  const insertions: Array<[number, string]> = [];
  guardInsertions(body.value, names.guard, insertions);
  let js = code.value;
  insertions.sort((a, b) => b[0] - a[0]);
  for (const [at, text] of insertions) js = js.slice(0, at) + text + js.slice(at);
  const head = `import { guard as ${names.guard}, ran as ${names.ran} } from "/${GUARD_MODULE}";`;
  return {
    ok: true,
    js: `${head}export default function (require, module, exports) {${names.ran}(${JSON.stringify(path)});${js}\n}`,
  };
}
