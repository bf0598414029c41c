/**
 * The reason tests give `state.abort()` when they crash a Durable Object on purpose. workerd
 * prints every abort as an "uncaught exception" with this reason, so a green run's log says the
 * crash was expected rather than looking like a failure.
 */

/** The abort reason of a simulated crash. */
export const EXPECTED_CRASH = "simulated crash (expected: this test crashes the object on purpose)";
