/**
 * Tool approvals (frontmatter `tools.requireApproval`): a call of a listed tool waits for a
 * person's yes. The task goes to input-required with an approval form (tool, input, approve or
 * deny); the answer runs the call or refuses it (agent-loop.ts). Runs last, after the call was
 * counted against its cap and announced on the stream.
 */
import type { Hook } from "../loop/contracts.ts";

/** The approvals hook. */
export const approvalsHook: Hook = {
  name: "approvals",
  beforeTool(ctx, call) {
    if (!ctx.requireApproval.includes(call.name)) return undefined;
    ctx.emit({
      kind: "approval",
      text: `${call.name} needs the user's approval`,
      tool: call.name,
      detail: "waiting for approval",
    });
    return { suspend: { kind: "approval", tool: call.name, input: call.input } };
  },
};
