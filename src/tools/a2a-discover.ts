/**
 * `a2a_discover` (domain `a2a`): reads a remote agent's Agent Card, by registry name or URL
 * (cached five minutes; `refresh` reads it again), and summarises it: name, description,
 * interfaces and protocol versions, streaming, skills.
 */
import { z } from "zod";
import { discoverCard } from "../remote/client.ts";
import { cardSummary } from "../remote/sdk-codec.ts";
import { defineTool } from "./input.ts";
import { RemoteAgentName, withRemote } from "./remote-call.ts";

const Input = z.strictObject({
  agent: RemoteAgentName.describe("Registry name or the agent's base URL."),
  refresh: z.boolean().optional().describe("Read the card again instead of the cached one."),
});

/** The `a2a_discover` tool. */
export const a2aDiscoverTool = defineTool({
  name: "a2a_discover",
  domain: "a2a",
  description:
    "Read a remote A2A agent's card (by registry name or http(s) URL): what it does, its skills, protocols and whether it streams.",
  input: Input,
  run: ({ agent, refresh }, context) =>
    withRemote(context, agent, async (connection) => ({
      content: cardSummary(await discoverCard(connection.fetch, connection.target, refresh)),
    })),
});
