/**
 * The ACTS document format (A2A Conformance Test Specification 0.1, `acts-specification.md`) as
 * this runner reads it: zod schemas for documents, suites, tests and the four kinds of step
 * (an abstract operation, a raw HTTP request, a client parsing step, an assertion step), with the
 * spellings the published corpus uses beside the specification's (`expect_error.code` for
 * `error_type`, `set_push_notification_config` for `create_push_config`, an `expect` whose keys
 * are the body's). Assertions stay plain data (`unknown`): assertions.ts reads them. Pure.
 */
import { z } from "zod";

/** A value an assertion is written with (a scalar for equality, or a map of operators). */
const Assertion = z.unknown();

/** A block of assertions on a response: `status`, `body`, or the body's own keys. */
const Expect = z.record(z.string(), Assertion);

/** What an error must be: its abstract type (`error_type`, or `code` in the corpus) and more. */
const ExpectError = z
  .object({
    error_type: Assertion.optional(),
    code: Assertion.optional(),
    message: Assertion.optional(),
    details: Assertion.optional(),
    data: Assertion.optional(),
  })
  .passthrough();

/** The stream expectations of a streaming step. */
const ExpectStream = z
  .object({
    min_count: z.number().int().optional(),
    max_count: z.number().int().optional(),
    timeout_ms: z.number().int().optional(),
    ordering: z.literal("monotonic_state").optional(),
    events: z.array(z.record(z.string(), Assertion)).optional(),
    final_event: z.record(z.string(), Assertion).optional(),
    each_event: z.record(z.string(), Assertion).optional(),
  })
  .passthrough();

/** A collection match of a named assertion: every element found at `path` against `match`. */
const CollectionMatch = z.object({ path: z.string(), match: z.record(z.string(), Assertion) });

/** An assertion on a prior step's response (or a captured value). */
export const NamedAssertion = z.object({
  id: z.string().optional(),
  description: z.string().optional(),
  source: z.string(),
  path: z.string().optional(),
  match: Assertion.optional(),
  any: CollectionMatch.optional(),
  all: CollectionMatch.optional(),
  none: CollectionMatch.optional(),
});
export type NamedAssertion = z.infer<typeof NamedAssertion>;

/** Re-running a step until a condition holds. */
const Repeat = z.object({
  until: z.string(),
  max_attempts: z.number().int().min(1).optional(),
  delay_ms: z.number().int().min(0).optional(),
  backoff: z.enum(["none", "linear", "exponential"]).optional(),
});

/** The fields every step may have. */
const StepBase = {
  id: z.string(),
  description: z.string().optional(),
  capture: z.record(z.string(), z.string()).optional(),
  assertions: z.array(NamedAssertion).optional(),
  expect: Expect.optional(),
  expect_error: ExpectError.optional(),
  expect_stream: ExpectStream.optional(),
  repeat: Repeat.optional(),
  delay_ms: z.number().int().min(0).optional(),
};

/** A step that runs an abstract A2A operation on the binding under test. */
export const OperationStep = z.object({
  ...StepBase,
  operation: z.string(),
  params: z.record(z.string(), z.unknown()).default({}),
});
export type OperationStep = z.infer<typeof OperationStep>;

/** A step that sends one HTTP request as written (a binding's wire details). */
export const RawStep = z.object({
  ...StepBase,
  raw: z.object({
    method: z.enum(["GET", "POST", "PUT", "DELETE"]),
    path: z.string(),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
    body_raw: z.string().optional(),
  }),
});
export type RawStep = z.infer<typeof RawStep>;

/** A step that asks a client to parse a canonical payload (not run against a server). */
export const ClientStep = z.object({
  id: z.string(),
  description: z.string().optional(),
  client_response: z.object({ operation: z.string(), wire_payload: z.unknown() }),
  expect_parsed: z.record(z.string(), Assertion),
});

/** A step that only checks earlier results. */
export const AssertionStep = z.object({
  id: z.string(),
  description: z.string().optional(),
  assertion: NamedAssertion.omit({ id: true, description: true }),
});

/** Any step. */
export const Step = z.union([OperationStep, RawStep, ClientStep, AssertionStep]);
export type Step = z.infer<typeof Step>;

/** The transport bindings of ACTS. */
export const BINDINGS = ["jsonrpc", "rest", "grpc"] as const;
export type Binding = (typeof BINDINGS)[number];

/** One test. */
export const Test = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  spec_ref: z.string().optional(),
  level: z.enum(["must", "should", "may"]),
  tags: z.array(z.string()).optional(),
  transport: z.array(z.enum(BINDINGS)).optional(),
  preconditions: z
    .object({
      capabilities: z.record(z.string(), z.unknown()).optional(),
      skills: z.array(z.object({ id: z.string() })).optional(),
      transport: z.array(z.enum(BINDINGS)).optional(),
      extensions: z.array(z.string()).optional(),
      description: z.string().optional(),
    })
    .optional(),
  requires_behaviors: z.array(z.string()).optional(),
  runner_requirements: z.array(z.string()).optional(),
  steps: z.array(Step).min(1),
  assertions: z.array(NamedAssertion).optional(),
});
export type Test = z.infer<typeof Test>;

/** A named group of tests. */
export const Suite = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  tests: z.array(Test).min(1),
});
export type Suite = z.infer<typeof Suite>;

/** One ACTS file. */
export const Document = z
  .object({
    acts_version: z.string().regex(/^1(\.|$)/, "an ACTS format this runner reads (1.x)"),
    spec_version: z.string(),
    variables: z.record(z.string(), z.string()).optional(),
    include: z.array(z.string()).optional(),
    suites: z.array(Suite).optional(),
  })
  .refine((d) => d.include || d.suites, "a document holds suites or includes files");
export type Document = z.infer<typeof Document>;

/** A step that runs an abstract operation. */
export const isOperationStep = (step: Step): step is OperationStep => "operation" in step;

/** A step that sends a raw request. */
export const isRawStep = (step: Step): step is RawStep => "raw" in step;

/** A step for a client to parse. */
export const isClientStep = (step: Step): step is z.infer<typeof ClientStep> =>
  "client_response" in step;
