/**
 * `a2a_discover` (domain `a2a`): reads a remote agent's Agent Card, by registry name or URL
 * (cached five minutes; `refresh` reads it again), and summarises it: name, description,
 * interfaces and protocol versions, streaming, skills.
 */
import { z } from "zod";
import type { Tool } from "../loop/contracts.ts";
import { discoverCard, remoteError } from "../remote/client.ts";
import { cardSummary } from "../remote/sdk-codec.ts";
import { parseInput } from "./input.ts";

const Input = z.strictObject({
  agent: z.string().trim().min(1, "is required").max(2_000),
  refresh: z.boolean().optional(),
});

/** The `a2a_discover` tool. */
export const a2aDiscoverTool: Tool = {
  name: "a2a_discover",
  domain: "a2a",
  description:
    "Read a remote A2A agent's card (by registry name or http(s) URL): what it does, its skills, protocols and whether it streams.",
  inputSchema: {
    type: "object",
    properties: {
      agent: { type: "string", description: "Registry name or the agent's base URL." },
      refresh: { type: "boolean", description: "Read the card again instead of the cached one." },
    },
    required: ["agent"],
    additionalProperties: false,
  },
  async run(input, context) {
    const parsed = parseInput("a2a_discover", Input, input);
    if (!parsed.ok) return parsed.result;
    const connection = context.remote.connect(parsed.data.agent);
    if (!connection.ok) return { content: connection.error, isError: true };
    try {
      const card = await discoverCard(connection.fetch, connection.target, parsed.data.refresh);
      return { content: cardSummary(card) };
    } catch (error) {
      return { content: remoteError(connection.target, error), isError: true };
    }
  },
};
