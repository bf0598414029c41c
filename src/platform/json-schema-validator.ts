/**
 * The JSON Schema validator the MCP SDK's client and server are given (`jsonSchemaValidator`).
 * The SDK's default, ajv, compiles each schema into a function from a string, which Workers
 * forbid (no `eval`, no `new Function`): a remote MCP tool with an `outputSchema` could not be
 * checked at all. `@cfworker/json-schema` interprets schemas instead (draft 2020-12, first error
 * reported). With it passed everywhere ajv is never constructed, so wrangler.toml's [alias] leaves
 * ajv out of the Worker's bundle (src/platform/ajv-absent.ts stands in for it).
 */
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

/** The one validator instance (it keeps no state between schemas). */
export const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();
