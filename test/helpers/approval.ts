/**
 * The approval fixture of the tests inside workerd: `checkpoint_restore` asks for the user's
 * approval on the writer (its frontmatter's `tools.requireApproval`), so a scenario that restores
 * a fresh checkpoint pauses for approval there, and on a parent that delegated to it.
 */
import { env } from "cloudflare:workers";
import { workspaceFor } from "../../src/workspace/client.ts";
import { scenario } from "./fake-model.ts";
import { textToolTurn } from "./turns.ts";

/**
 * A fresh checkpoint (`id`) in `agent`'s workspace for `owner`, and a scenario (`restore`) that
 * restores it, then answers `answer`.
 */
export async function restoreScenario(agent: string, owner: string, answer: string) {
  const made = await workspaceFor(env.WORKSPACES, agent, owner).checkpointCreate("before", {
    taskId: "approval-fixture",
  });
  if (!made.ok) throw new Error(made.error);
  const { id } = made.value;
  const restore = await scenario([textToolTurn("checkpoint_restore", { id }), { text: answer }]);
  return { id, restore };
}
