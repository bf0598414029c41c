/**
 * Runs one step of a test on one binding and checks it: an abstract operation (its params'
 * placeholders resolved, run again under `repeat` until its condition holds or its attempts run
 * out, with the backoff asked), a raw request, or an assertion on earlier results; then its
 * captures (`{{step.var}}`, and `{{step.response}}`: the whole assertion root) and its named
 * assertions. A step's `delay_ms` is waited first. Node only (it calls the server).
 */
import type { Failure } from "./assertions.ts";
import { namedFailures, outcomeFailures, untilHolds } from "./expectations.ts";
import { isMap, type Json } from "./json.ts";
import type { NamedAssertion, OperationStep, RawStep, Step } from "./model.ts";
import { isClientStep, isOperationStep, isRawStep } from "./model.ts";
import { resolveOne } from "./paths.ts";
import { callOperation, type Outcome, type RawRequest, sendRaw, type Target } from "./transport.ts";
import { interpolate, type Scope } from "./variables.ts";
import { OPERATIONS, type OperationKind } from "./wire.ts";

/** What a step runs with. */
export interface StepContext {
  binding: "jsonrpc" | "rest";
  target: Target;
  /** The test's variables; the step's captures are added to it. */
  scope: Scope;
  /** Whether raw requests carry the runner's token (not in tests of authentication). */
  authenticateRaw: boolean;
  /** How long a stream is read before the runner stops waiting for its end. */
  streamTimeoutMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The kind of an operation step (`get_agent_card` with `extended: true` is the extended card). */
function kindOf(step: OperationStep, params: Json): OperationKind {
  const kind = OPERATIONS[step.operation];
  if (!kind) throw new Error(`unknown operation ${step.operation}`);
  return kind === "card" && params.extended === true ? "extendedCard" : kind;
}

/** The delay before attempt `attempt` (2, 3, ...) of a repeated step. */
function backoff(step: OperationStep, attempt: number): number {
  const base = step.repeat?.delay_ms ?? 1000;
  if (step.repeat?.backoff === "linear") return base * (attempt - 1);
  if (step.repeat?.backoff === "exponential") return base * 2 ** (attempt - 2);
  return base;
}

async function runOperation(step: OperationStep, ctx: StepContext): Promise<Outcome> {
  const params = interpolate(step.params, ctx.scope);
  const { extended: _extended, ...rest } = params;
  const kind = kindOf(step, params);
  const timeout = step.expect_stream?.timeout_ms ?? ctx.streamTimeoutMs;
  const attempts = step.repeat ? (step.repeat.max_attempts ?? 10) : 1;
  let outcome = await callOperation(ctx.binding, kind, rest, ctx.target, timeout);
  for (let attempt = 2; step.repeat && !untilHolds(step.repeat.until, outcome.root); attempt++) {
    if (attempt > attempts)
      throw new StepFailure([
        {
          path: "repeat",
          message: `${step.repeat.until} did not hold after ${attempts} attempts (last: ${JSON.stringify(resolveOne(outcome.root, step.repeat.until.split(/\s/)[0] ?? ""))})`,
        },
      ]);
    await sleep(backoff(step, attempt));
    outcome = await callOperation(ctx.binding, kind, rest, ctx.target, timeout);
  }
  return outcome;
}

/** A step that did not hold: its failures. */
export class StepFailure extends Error {
  override readonly name = "StepFailure";
  readonly failures: Failure[];
  constructor(failures: Failure[]) {
    super(failures.map((f) => `${f.path}: ${f.message}`).join("; "));
    this.failures = failures;
  }
}

/** Checks named assertions, each (its source and its matches) resolved in the test's scope. */
export function assertionFailures(assertions: NamedAssertion[], scope: Scope): Failure[] {
  return assertions.flatMap((assertion) => {
    const { source, ...rest } = assertion;
    return namedFailures(interpolate(rest, scope) as typeof rest, interpolate(source, scope));
  });
}

/** A step's expectations with their placeholders resolved (after the step ran). */
const resolvedExpectations = (step: OperationStep | RawStep, scope: Scope) =>
  interpolate(
    { expect: step.expect, expect_error: step.expect_error, expect_stream: step.expect_stream },
    scope,
  );

/**
 * A raw request with its placeholders resolved, and a `messageId` for a message that has none
 * (acts-specification.md §12.4 asks it of every request the runner sends).
 */
function rawRequest(step: RawStep, scope: Scope): RawRequest {
  const raw: RawRequest = interpolate(step.raw, scope);
  const body = isMap(raw.body) ? raw.body : {};
  const params = isMap(body.params) ? body.params : {};
  const message = isMap(params.message)
    ? params.message
    : isMap(body.message)
      ? body.message
      : null;
  if (message && message.messageId === undefined) message.messageId = crypto.randomUUID();
  return raw;
}

/** Keeps a step's captures and its whole result for later steps. */
function capture(step: OperationStep | RawStep, outcome: Outcome, scope: Scope): Failure[] {
  const failures: Failure[] = [];
  const values: Record<string, unknown> = { response: outcome.root };
  for (const [name, path] of Object.entries(step.capture ?? {})) {
    const value = resolveOne(outcome.root, path);
    if (value === undefined)
      failures.push({ path, message: `capture ${name}: nothing at ${path}` });
    values[name] = value;
  }
  scope.captured.set(step.id, values);
  return failures;
}

/** Runs one step; throws StepFailure when it does not hold. */
export async function runStep(step: Step, ctx: StepContext): Promise<void> {
  if (isClientStep(step)) throw new Error("a client step needs a client under test");
  if (!isOperationStep(step) && !isRawStep(step)) {
    const failures = assertionFailures([step.assertion], ctx.scope);
    if (failures.length > 0) throw new StepFailure(failures);
    return;
  }
  if (step.delay_ms) await sleep(step.delay_ms);
  const outcome = isOperationStep(step)
    ? await runOperation(step, ctx)
    : await sendRaw(
        rawRequest(step, ctx.scope),
        ctx.target,
        ctx.authenticateRaw,
        step.expect_stream?.timeout_ms ?? ctx.streamTimeoutMs,
      );
  const failures = [
    ...outcomeFailures(resolvedExpectations(step, ctx.scope), outcome, isRawStep(step)),
    ...capture(step, outcome, ctx.scope),
  ];
  if (failures.length === 0) failures.push(...assertionFailures(step.assertions ?? [], ctx.scope));
  if (failures.length > 0) throw new StepFailure(failures);
}
