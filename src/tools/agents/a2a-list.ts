/**
 * `a2a_list` (domain `a2a`): the remote A2A agents of the registry (`A2A_AGENTS`), with their
 * descriptions and how they are reached. Other agents can still be called by URL.
 */
import { inputlessTool } from "../input.ts";

/** The `a2a_list` tool. */
export const a2aListTool = inputlessTool(
  "a2a_list",
  "a2a",
  "List the remote A2A agents this deployment knows (name, description, how it is reached). Use a name with a2a_discover or a2a_call.",
  async (context) => {
    const agents = context.remote.registry();
    if (agents.length === 0)
      return {
        content:
          "No remote agents are registered (A2A_AGENTS is empty). An agent can still be called by its URL.",
      };
    const lines = agents.map(
      (a) =>
        `- ${a.name}: ${a.description ?? "(no description; a2a_discover reads its card)"} [${a.service ? `service binding ${a.service}` : a.url}]`,
    );
    return { content: `Remote A2A agents (${agents.length}):\n${lines.join("\n")}` };
  },
  true,
);
