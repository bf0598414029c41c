/**
 * The URIs of the harness's own A2A extensions, declared in every Agent Card and carried on the
 * messages and parts they mark. Constants only; imports nothing.
 */

/** The extension URI of harness events (loop/harness-events.ts builds them). */
export const HARNESS_EVENTS_EXTENSION = "urn:a2a-edge-harness:ext:harness-events:v1";
