/**
 * What a step expects of its outcome, checked: `expect` (its `status`: for an abstract operation
 * 200 when it succeeded and `error` when it failed, for a raw request the HTTP status; its `body`
 * and any other keys, against the assertion root), `expect_error` (the error's name, written as
 * `error_type` or `code`, then its `message` and `details`/`data`), `expect_stream`; the named
 * assertions of a step or a test (`source`, `path`, `match`, and `any`/`all`/`none` over a
 * collection); and a `repeat.until` condition (`path == v`, `path != v`, `path in [a, b]`). Pure.
 */
import { check, type Failure, holds, show } from "./assertions.ts";
import type { Json } from "./json.ts";
import type { NamedAssertion } from "./model.ts";
import { resolveAll, resolveOne } from "./paths.ts";
import { type StreamExpectation, streamFailures } from "./stream-expect.ts";
import type { Outcome } from "./transport.ts";

/** The expectations a step may carry. */
export interface StepExpectations {
  expect?: Json | undefined;
  expect_error?: Json | undefined;
  expect_stream?: StreamExpectation | undefined;
}

/** Whether an `expect` block is written for a failure (`status: error`, or an `error` member). */
const expectsFailure = (expect: Json | undefined) =>
  expect !== undefined && (expect.status === "error" || "error" in expect);

function expectFailures(expect: Json, outcome: Outcome, raw: boolean): Failure[] {
  const failures: Failure[] = [];
  for (const [key, value] of Object.entries(expect)) {
    if (key === "status") {
      const status = raw ? outcome.httpStatus : outcome.error ? "error" : 200;
      failures.push(...check(status, value, "status"));
    } else if (key === "body") failures.push(...check(outcome.root, value, "$"));
    else failures.push(...check(outcome.root, { [key]: value }, "$"));
  }
  return failures;
}

function errorFailures(expected: Json, outcome: Outcome): Failure[] {
  const error = outcome.error;
  const type = expected.error_type ?? expected.code;
  if (!error)
    return [
      {
        path: "error",
        message: `expected ${typeof type === "string" ? type : "an error"}, the call succeeded with ${show(outcome.root)}`,
      },
    ];
  const failures: Failure[] = [];
  if (type !== undefined) {
    const named = check(error.name, type, "error.type");
    if (named.length > 0)
      failures.push({
        path: "error.type",
        message: `expected ${show(type)}, got ${error.name ?? "an unnamed error"} (${show(error.code)}: ${show(error.message)})`,
      });
  }
  if (expected.message !== undefined)
    failures.push(...check(error.message, expected.message, "error.message"));
  const details = expected.details ?? expected.data;
  if (details !== undefined) failures.push(...check(error.data, details, "error.data"));
  return failures;
}

/** Every failure of a step's outcome against its expectations. */
export function outcomeFailures(step: StepExpectations, outcome: Outcome, raw: boolean): Failure[] {
  const failures: Failure[] = [];
  if (step.expect_error) failures.push(...errorFailures(step.expect_error, outcome));
  else if (!raw && outcome.error && !expectsFailure(step.expect))
    failures.push({
      path: "error",
      message: `the call failed: ${outcome.error.name ?? "error"} ${show(outcome.error.code)}: ${show(outcome.error.message)}`,
    });
  if (step.expect) failures.push(...expectFailures(step.expect, outcome, raw));
  if (step.expect_stream) {
    if (outcome.events === null)
      failures.push({ path: "stream", message: `expected a stream, got ${show(outcome.root)}` });
    else failures.push(...streamFailures(outcome.events, outcome.closed, step.expect_stream, raw));
  }
  return failures;
}

/** A collection match: the elements at `path` against `match`. */
function collectionFailures(
  value: unknown,
  quantifier: "any" | "all" | "none",
  collection: { path: string; match: Json },
): Failure[] {
  const elements = resolveAll(value, collection.path);
  const passing = elements.filter((e) => holds(e, collection.match)).length;
  const ok =
    quantifier === "any"
      ? passing > 0
      : quantifier === "all"
        ? elements.length > 0 && passing === elements.length
        : passing === 0;
  if (ok) return [];
  return [
    {
      path: collection.path,
      message: `expected ${quantifier} of ${elements.length} elements to match ${show(collection.match)}; ${passing} do: ${show(elements)}`,
    },
  ];
}

/** The failures of a named assertion, its source already resolved to `value`. */
export function namedFailures(
  assertion: Omit<NamedAssertion, "source">,
  value: unknown,
): Failure[] {
  const failures: Failure[] = [];
  const target = assertion.path ? resolveOne(value, assertion.path) : value;
  if (assertion.match !== undefined)
    failures.push(...check(target, assertion.match, assertion.path ?? "$"));
  for (const quantifier of ["any", "all", "none"] as const) {
    const collection = assertion[quantifier];
    if (collection) failures.push(...collectionFailures(target, quantifier, collection));
  }
  return failures;
}

const UNTIL = /^\s*(\S+)\s*(==|!=|in)\s*(.+?)\s*$/;

/** A literal of an `until` condition, quotes removed. */
const literal = (text: string) => text.trim().replace(/^["']|["']$/g, "");

/** Whether `until` holds for `root`; throws for a condition this runner cannot read. */
export function untilHolds(until: string, root: unknown): boolean {
  const parsed = UNTIL.exec(until);
  if (!parsed) throw new Error(`repeat.until: cannot read "${until}"`);
  const [, path = "", op, right = ""] = parsed;
  const actual = resolveOne(root, path);
  const text = actual === undefined ? undefined : String(actual);
  if (op === "in") {
    const list = right
      .replace(/^\[|\]$/g, "")
      .split(",")
      .map(literal);
    return text !== undefined && list.includes(text);
  }
  return op === "==" ? text === literal(right) : text !== literal(right);
}
