/**
 * `a2a_discover` (domain `a2a`): reads a remote agent's Agent Card, by registry name or URL
 * (cached a minute per isolate; `refresh` reads it again), and answers the card itself as
 * compact JSON (remote/card-json.ts): name, description, version, url, interfaces, capabilities,
 * skills with their ids and examples, security.
 */
import { z } from "zod";
import { compactCardJson } from "../../remote/card-json.ts";
import { discoverCard } from "../../remote/client.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool } from "../input.ts";
import { remoteAgentName, withRemote } from "./remote-call.ts";

const toolInput = lazy(() =>
  z.strictObject({
    agent: remoteAgentName().describe("Registry name or the agent's base URL."),
    refresh: z.boolean().optional().describe("Read the card again instead of the cached one."),
  }),
);

/** The `a2a_discover` tool. */
export const a2aDiscoverTool = defineTool({
  name: "a2a_discover",
  domain: "a2a",
  readOnly: true,
  description:
    "Read a remote A2A agent's Agent Card (by registry name or http(s) URL), as compact JSON: name, description, version, url, interfaces (URL, binding, protocol version), capabilities (streaming, push notifications), skills (id, name, description, tags, examples) and security (schemes; required: the alternatives a caller must meet; null: none). Cached a minute; refresh: true reads it again.",
  input: toolInput,
  run: ({ agent, refresh }, context) =>
    withRemote(context, agent, async (connection) => ({
      content: compactCardJson(await discoverCard(connection.fetch, connection.target, refresh)),
    })),
});
