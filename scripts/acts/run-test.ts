/**
 * One ACTS test on one binding: skipped, with the reason, when it is not this binding's (gRPC is
 * not run here), when the SUT's card does not meet its preconditions (capabilities, skills,
 * extensions), when it needs a behaviour the SUT does not declare or a runner capability this
 * runner lacks, or when it is a client test (it grades a client's parser); otherwise its steps in
 * order, each on the results of the ones before (its own variables: tests share nothing), then its
 * test-level assertions. The first step that does not hold fails the test and names itself; an
 * exception (the server unreachable, an operation this runner does not know) is an error.
 */
import { show } from "./assertions.ts";
import { isMap, type Json } from "./json.ts";
import type { Binding, Suite, Test } from "./model.ts";
import { isClientStep } from "./model.ts";
import { assertionFailures, runStep, StepFailure } from "./steps.ts";
import type { Target } from "./transport.ts";
import { type Scope, VariableError } from "./variables.ts";

/** A test's result on one binding (ACTS report `test-result`, with where it comes from). */
export interface TestResult {
  id: string;
  name: string;
  level: "must" | "should" | "may";
  file: string;
  suite: string;
  binding: Binding;
  result: "pass" | "fail" | "skip" | "error";
  durationMs: number;
  skipReason?: string;
  failure?: { message: string; stepId?: string };
}

/** How tests run against one SUT on one binding. */
export interface RunContext {
  binding: "jsonrpc" | "rest";
  target: Target;
  /** The SUT's public Agent Card (preconditions read its capabilities, skills, extensions). */
  card: Json;
  /** The SUT behaviours (message prefixes) the SUT declares it implements. */
  behaviours: ReadonlySet<string>;
  /** The runner's own variables (over the document's defaults). */
  variables: Record<string, string>;
  /** How long a stream is read before the runner stops waiting for its end. */
  streamTimeoutMs: number;
}

/** Runner capabilities (`runner_requirements`) this runner has. */
const RUNNER_HAS = new Set(["header_inspection", "auth_credentials"]);

/**
 * A capability as a precondition reads it from the card. `authentication` is no AgentCapabilities
 * field (spec 1.0.1 §4.4.3); the corpus means an agent that requires it, which a card says with
 * `securityRequirements` (v1.0), so that is what it reads.
 */
function capability(card: Json, key: string): unknown {
  const capabilities = isMap(card.capabilities) ? card.capabilities : {};
  if (key === "authentication" && !(key in capabilities))
    return Array.isArray(card.securityRequirements) && card.securityRequirements.length > 0;
  return capabilities[key];
}

function preconditionProblem(test: Test, card: Json): string | null {
  const capabilities = isMap(card.capabilities) ? card.capabilities : {};
  for (const [key, wanted] of Object.entries(test.preconditions?.capabilities ?? {}))
    if (JSON.stringify(capability(card, key)) !== JSON.stringify(wanted))
      return `needs capabilities.${key} = ${show(wanted)}; the card says ${show(capability(card, key))}`;
  const skills = Array.isArray(card.skills) ? card.skills.filter(isMap).map((s) => s.id) : [];
  for (const { id } of test.preconditions?.skills ?? [])
    if (!skills.includes(id)) return `needs skill ${id}; the card has none such`;
  const extensions = Array.isArray(capabilities.extensions)
    ? capabilities.extensions.filter(isMap).map((e) => e.uri)
    : [];
  for (const uri of test.preconditions?.extensions ?? [])
    if (!extensions.includes(uri)) return `needs extension ${uri}; the card declares none such`;
  return null;
}

/** Why `test` does not run on this binding, or null when it runs. */
export function skipReason(test: Test, ctx: RunContext): string | null {
  for (const bindings of [test.transport, test.preconditions?.transport])
    if (bindings && !bindings.includes(ctx.binding))
      return bindings.every((b) => b === "grpc")
        ? "gRPC only: this runner speaks JSON-RPC and HTTP+JSON (gRPC is out of scope)"
        : `for ${bindings.join(", ")} only`;
  if (test.steps.some(isClientStep))
    return "a client test: it grades a client's parsing, and this run checks a server";
  const missing = (test.requires_behaviors ?? []).find((b) => !ctx.behaviours.has(b));
  if (missing) return `needs SUT behaviour ${missing}, which the SUT does not declare`;
  const lacking = (test.runner_requirements ?? []).find((r) => !RUNNER_HAS.has(r));
  if (lacking) return `needs a runner that can ${lacking}`;
  return preconditionProblem(test, ctx.card);
}

async function runSteps(test: Test, ctx: RunContext, document: Record<string, string>) {
  const scope: Scope = { captured: new Map(), runner: ctx.variables, document, env: process.env };
  const stepContext = {
    binding: ctx.binding,
    target: ctx.target,
    scope,
    // A test of authentication sends exactly the credentials its raw requests write.
    authenticateRaw: !(test.tags ?? []).includes("auth"),
    streamTimeoutMs: ctx.streamTimeoutMs,
  };
  for (const step of test.steps) {
    try {
      await runStep(step, stepContext);
    } catch (error) {
      // A placeholder nothing resolves fails the step (acts-specification.md §12.2).
      if (error instanceof StepFailure || error instanceof VariableError)
        return { message: error.message, stepId: step.id };
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), {
        stepId: step.id,
      });
    }
  }
  const failures = assertionFailures(test.assertions ?? [], scope);
  if (failures.length > 0)
    return { message: failures.map((f) => `${f.path}: ${f.message}`).join("; ") };
  return null;
}

/** Runs `test` of `suite` (from `file`, with its document variables) on `ctx.binding`. */
export async function runTest(
  test: Test,
  suite: Suite,
  file: { file: string; variables: Record<string, string> },
  ctx: RunContext,
): Promise<TestResult> {
  const base = {
    id: test.id,
    name: test.name,
    level: test.level,
    file: file.file,
    suite: suite.id,
    binding: ctx.binding,
  };
  const skip = skipReason(test, ctx);
  if (skip) return { ...base, result: "skip", durationMs: 0, skipReason: skip };
  const started = Date.now();
  try {
    const failure = await runSteps(test, ctx, file.variables);
    const durationMs = Date.now() - started;
    return failure
      ? { ...base, result: "fail", durationMs, failure }
      : { ...base, result: "pass", durationMs };
  } catch (error) {
    const stepId = isMap(error) && typeof error.stepId === "string" ? error.stepId : undefined;
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return {
      ...base,
      result: "error",
      durationMs: Date.now() - started,
      failure: { message, ...(stepId ? { stepId } : {}) },
    };
  }
}
