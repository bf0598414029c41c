/**
 * The verification gate (`VERIFY_BEFORE_COMPLETE`, default on): when the agent wants to finish
 * after writing or editing files it has not read back or searched since, its answer stays in the
 * transcript, one reminder naming those files is added, and another turn runs. At most once per
 * batch of changes: after a reminder, only new changes can trigger another.
 */
import type { Hook } from "../loop/contracts.ts";

const HOOK = "verification";

/** The verification gate. */
export const verificationHook: Hook = {
  name: HOOK,
  afterTool(ctx, _call, result) {
    const effects = result.effects;
    if (result.isError || !effects) return result;
    const pending = new Set(ctx.state.get<string[]>(HOOK, "pending") ?? []);
    for (const path of [
      ...(effects.read ?? []),
      ...(effects.searched ?? []),
      ...(effects.ran ?? []),
    ])
      pending.delete(path);
    if ((effects.wrote ?? []).length > 0) {
      for (const path of effects.wrote ?? []) pending.add(path);
      ctx.state.set(HOOK, "reminded", false);
    }
    ctx.state.set(HOOK, "pending", [...pending]);
    return result;
  },
  beforeComplete(ctx) {
    if (!ctx.config.verifyBeforeComplete) return undefined;
    const pending = ctx.state.get<string[]>(HOOK, "pending") ?? [];
    if (pending.length === 0 || ctx.state.get<boolean>(HOOK, "reminded")) return undefined;
    ctx.state.set(HOOK, "reminded", true);
    const files = pending.join(", ");
    ctx.emit({
      kind: "verification",
      text: `Asked the agent to check ${files} before finishing`,
      detail: files,
    });
    return {
      continueWith: `[harness] Before you finish: you changed ${files} and have not read ${pending.length === 1 ? "it" : "them"} back since. Read each changed file (read_file) or search it (grep_files), check it against the request, fix anything wrong, then give your final answer.`,
    };
  },
};
