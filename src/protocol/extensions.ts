/**
 * The URIs of the harness's own A2A extensions, declared in every Agent Card and carried on the
 * messages and parts they mark. Constants only; imports nothing.
 */

/** The extension URI of harness events (loop/harness-events.ts builds them). */
export const HARNESS_EVENTS_EXTENSION = "urn:a2a-edge-harness:ext:harness-events:v1";

/**
 * The extension URI by which a card says it accepts delegation tokens; its `params.issuers` lists
 * the issuers it trusts (auth/delegated.ts, remote/delegation.ts).
 */
export const DELEGATION_EXTENSION = "urn:a2a-edge-harness:ext:delegation:v1";

/** The name of the delegation security scheme in a card's `securitySchemes`. */
export const DELEGATION_SCHEME = "delegation";

/**
 * The extension URI of a task's cost: its token usage and estimated cost, under this key in the
 * task's metadata and in the metadata of its final status update (trace/cost.ts).
 */
export const COST_EXTENSION = "urn:a2a-edge-harness:ext:cost:v1";

/**
 * The extension URI of the answer echo: just before a task completes, its stream carries the
 * answer once more as a working status message listing this URI in its `extensions`, for clients
 * that show only status messages (the AG-UI bridge `@ag-ui/a2a`). A client that shows the `answer`
 * artifact skips a message that lists it (task/runtime/answer-artifact.ts builds it).
 */
export const ANSWER_ECHO_EXTENSION = "urn:a2a-edge-harness:ext:answer-echo:v1";

/**
 * The extension URI of task generations (the A2A 1.1 draft's `generation`, `currentGeneration`
 * long poll and `ifGenerationMatch`, under this project's URI until 1.1 is released): opt-in per
 * request by the `A2A-Extensions` header (a2a/extension-activation.ts).
 */
export const GENERATIONS_EXTENSION = "urn:a2a-edge-harness:ext:generations:v1";

/**
 * The extension URI of live messages (the A2A 1.1 draft's `SendLiveMessage`, under this URI until
 * it ships): a message sent to a working task is queued and reaches the model at its next step as
 * a user turn. A client asks for it by calling `SendLiveMessage` (JSON-RPC) or `POST live`
 * (HTTP+JSON), or by listing this URI in the `extensions` of a plain send naming the task; the
 * task's streams show each such message as a working status update whose message (role user)
 * lists this URI (protocol/live-message.ts).
 */
export const LIVE_MESSAGES_EXTENSION = "urn:a2a-edge-harness:ext:live-messages:v1";
