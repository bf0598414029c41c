/**
 * What the Worker's bundle has in ajv's place (wrangler.toml [alias] maps `ajv` and
 * `ajv-formats` here: both default exports are this class). The MCP SDK imports ajv for its default JSON Schema validator, which
 * cannot run in Workers (it compiles schemas with `new Function`); the harness passes its own
 * (json-schema-validator.ts) to every MCP client and server, so ajv is never constructed. If
 * something did construct it, this says why it is missing instead of failing obscurely.
 */
const ABSENT =
  "ajv is not in this Worker's bundle (Workers cannot run its compiled validators): pass jsonSchemaValidator from src/platform/json-schema-validator.ts";

/** Stands in for ajv's default export (the Ajv class). */
export default class AjvAbsent {
  constructor() {
    throw new Error(ABSENT);
  }
}
