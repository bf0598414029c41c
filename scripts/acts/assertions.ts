/**
 * The ACTS assertion language (acts-specification.md §5) checked against a JSON value: a bare
 * scalar is equality; a map is nested members (YAML nesting mirrors the response) and operators
 * (`type`, `exists`, `absent`, `contains`, `matches`, `starts_with`, `ends_with`, `gte`, `lte`,
 * `gt`, `lt`, `count`, `count_gte`, `count_lte`, `one_of`, `all_of`, `any_of`, `not`, and the
 * corpus's `items`: every element against a map, or the first elements against a list), all of
 * which must hold; a list is the first elements in order. A key is an operator only when its value
 * has the operator's shape, so a member named `type` or `status` (problem details) is a member.
 * Every failure names its path, what was expected and what was found. Pure.
 */
import { isMap } from "./json.ts";

/** One assertion that did not hold. */
export interface Failure {
  path: string;
  message: string;
}

const TYPES = ["string", "number", "boolean", "array", "object", "null", "integer"];
const isString = (v: unknown): v is string => typeof v === "string";
const isNumber = (v: unknown): v is number => typeof v === "number";

/** Whether `value` is what operator `name` takes. */
const SHAPES: Readonly<Record<string, (value: unknown) => boolean>> = {
  type: (v) => isString(v) && TYPES.includes(v),
  exists: (v) => v === true,
  absent: (v) => v === true,
  contains: isString,
  matches: isString,
  starts_with: isString,
  ends_with: isString,
  gte: isNumber,
  lte: isNumber,
  gt: isNumber,
  lt: isNumber,
  count: isNumber,
  count_gte: isNumber,
  count_lte: isNumber,
  one_of: Array.isArray,
  all_of: Array.isArray,
  any_of: Array.isArray,
  not: () => true,
  items: (v) => isMap(v) || Array.isArray(v),
};

/** A value's type as ACTS names it. */
function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** A short rendering of a value for a failure message. */
export function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Whether `actual` satisfies `expected` (no failures). */
export const holds = (actual: unknown, expected: unknown): boolean =>
  check(actual, expected).length === 0;

/** An alternative of `one_of`: a scalar is equality, a map or list an assertion. */
const matchesAlternative = (actual: unknown, alternative: unknown) =>
  alternative !== null && typeof alternative === "object"
    ? holds(actual, alternative)
    : deepEqual(actual, alternative);

/** Checks one operator; a message when it does not hold. */
function operator(name: string, arg: unknown, actual: unknown, path: string): Failure[] {
  const fail = (message: string): Failure[] => [{ path, message }];
  const got = `got ${show(actual)}`;
  switch (name) {
    case "type": {
      const ok = arg === "integer" ? Number.isInteger(actual) : typeOf(actual) === arg;
      return ok ? [] : fail(`expected a ${String(arg)}, ${got}`);
    }
    case "exists":
      return actual !== undefined ? [] : fail("expected to be present, it is missing");
    case "absent":
      return actual === undefined ? [] : fail(`expected to be absent, ${got}`);
    case "contains":
    case "starts_with":
    case "ends_with": {
      const text = arg as string;
      const ok =
        isString(actual) &&
        (name === "contains"
          ? actual.includes(text)
          : name === "starts_with"
            ? actual.startsWith(text)
            : actual.endsWith(text));
      return ok
        ? []
        : fail(`expected a string that ${name.replace("_", "s ")} ${show(text)}, ${got}`);
    }
    case "matches":
      return isString(actual) && new RegExp(arg as string).test(actual)
        ? []
        : fail(`expected a string matching /${String(arg)}/, ${got}`);
    default:
      return numericOrListOperator(name, arg, actual, path);
  }
}

const COMPARE: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  gte: (a, b) => a >= b,
  lte: (a, b) => a <= b,
  gt: (a, b) => a > b,
  lt: (a, b) => a < b,
  count: (a, b) => a === b,
  count_gte: (a, b) => a >= b,
  count_lte: (a, b) => a <= b,
};

function numericOrListOperator(
  name: string,
  arg: unknown,
  actual: unknown,
  path: string,
): Failure[] {
  const fail = (message: string): Failure[] => [{ path, message }];
  const compare = COMPARE[name];
  if (compare) {
    const counted = name.startsWith("count");
    const value = counted ? (Array.isArray(actual) ? actual.length : undefined) : actual;
    return isNumber(value) && compare(value, arg as number)
      ? []
      : fail(
          `expected ${counted ? "a list whose length is " : ""}${name} ${String(arg)}, got ${show(actual)}`,
        );
  }
  const list = arg as unknown[];
  switch (name) {
    case "one_of":
      return list.some((alt) => matchesAlternative(actual, alt))
        ? []
        : fail(`expected one of ${show(list)}, got ${show(actual)}`);
    case "all_of":
      return list.flatMap((item) => check(actual, item, path));
    case "any_of":
      return list.some((item) => holds(actual, item))
        ? []
        : fail(`expected any of ${show(list)}, got ${show(actual)}`);
    case "not":
      return holds(actual, arg) ? fail(`expected not ${show(arg)}, got ${show(actual)}`) : [];
    case "items":
      return itemsOperator(arg, actual, path);
    default:
      return fail(`unknown operator ${name}`);
  }
}

/** `items`: a map holds for every element; a list holds for the first elements in order. */
function itemsOperator(arg: unknown, actual: unknown, path: string): Failure[] {
  if (!Array.isArray(actual)) return [{ path, message: `expected a list, got ${show(actual)}` }];
  if (Array.isArray(arg)) return check(actual, arg, path);
  return actual.flatMap((item, i) => check(item, arg, `${path}[${i}]`));
}

/** Checks `actual` against `expected`, every failure with its path. */
export function check(actual: unknown, expected: unknown, path = "$"): Failure[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length < expected.length)
      return [
        { path, message: `expected a list of at least ${expected.length}, got ${show(actual)}` },
      ];
    return expected.flatMap((item, i) => check(actual[i], item, `${path}[${i}]`));
  }
  if (!isMap(expected))
    return deepEqual(actual, expected)
      ? []
      : [{ path, message: `expected ${show(expected)}, got ${show(actual)}` }];
  const failures: Failure[] = [];
  for (const [key, arg] of Object.entries(expected)) {
    const shape = SHAPES[key];
    if (shape?.(arg)) failures.push(...operator(key, arg, actual, path));
    else {
      if (actual !== undefined && !isMap(actual)) {
        failures.push({ path, message: `expected an object with ${key}, got ${show(actual)}` });
        continue;
      }
      failures.push(...check(actual?.[key], arg, `${path}.${key}`));
    }
  }
  return failures;
}
