/**
 * ACTS variables: `{{name}}` placeholders in any string of a step, resolved from (first match
 * wins) the values captured by earlier steps of the test (`{{step.var}}`, and `{{step.response}}`
 * for a step's whole result), the runner's own variables (the SUT's base URL, a webhook receiver
 * of its own), the document's variables (defaults, themselves resolved the same way), the
 * environment (`{{env.NAME}}`) and `{{$uuid}}` (a fresh UUID each time). A string that is one
 * placeholder becomes the value itself (an object stays an object); a placeholder that resolves to
 * nothing is an error naming it. Pure but for the environment and the UUIDs.
 */
import { isMap } from "./json.ts";

/** Raised for a placeholder nothing resolves; the step fails with it. */
export class VariableError extends Error {
  override readonly name = "VariableError";
}

/** Where placeholders are resolved from. */
export interface Scope {
  /** Values captured per step id (`response` is the step's whole result). */
  captured: Map<string, Record<string, unknown>>;
  runner: Record<string, string>;
  document: Record<string, string>;
  env: NodeJS.ProcessEnv;
}

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]+?)\s*\}\}$/;

function lookup(name: string, scope: Scope, depth: number): unknown {
  if (name === "$uuid") return crypto.randomUUID();
  if (name.startsWith("env.")) return scope.env[name.slice(4)];
  const dot = name.indexOf(".");
  if (dot > 0) {
    const step = scope.captured.get(name.slice(0, dot));
    const key = name.slice(dot + 1);
    if (step && Object.hasOwn(step, key)) return step[key];
  }
  if (Object.hasOwn(scope.runner, name)) return scope.runner[name];
  const text = Object.hasOwn(scope.document, name) ? scope.document[name] : undefined;
  return text !== undefined && depth < 5 ? interpolateString(text, scope, depth + 1) : undefined;
}

function resolved(name: string, scope: Scope, depth: number): unknown {
  const value = lookup(name, scope, depth);
  if (value === undefined) throw new VariableError(`{{${name}}} resolves to nothing`);
  return value;
}

function interpolateString(text: string, scope: Scope, depth: number): unknown {
  const whole = WHOLE.exec(text);
  if (whole?.[1]) return resolved(whole[1], scope, depth);
  return text.replace(PLACEHOLDER, (_all, name: string) => {
    const value = resolved(name, scope, depth);
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

function resolveIn(value: unknown, scope: Scope): unknown {
  if (typeof value === "string") return interpolateString(value, scope, 0);
  if (Array.isArray(value)) return value.map((item) => resolveIn(item, scope));
  if (isMap(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveIn(v, scope)]));
  return value;
}

/**
 * `value` with every placeholder in its strings (keys left as written) resolved. The result has
 * the shape of what the step wrote (a placeholder stands for the value the test put there), so it
 * is typed as the input.
 */
export function interpolate<T>(value: T, scope: Scope): T {
  // The same shape, placeholders replaced by the values they name (see above).
  return resolveIn(value, scope) as T;
}
