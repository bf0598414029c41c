/**
 * The verification gate (`VERIFY_BEFORE_COMPLETE`, default on), the deterministic half of the
 * verification protocol (the other half is the system prompt's "Before you finish" steps,
 * prompt.ts): when the agent wants to finish after writing or editing files it has not verified
 * since, its answer stays in the transcript, one reminder naming those files is added (with only
 * the tools the agent has to check them: run_code when one of them is code), and another turn
 * runs. What verifies changes, after the last of them: a successful run_code verifies them all (a
 * failing run is an error result and verifies nothing); reading a changed file back (read_file)
 * or finding it in a search (grep_files) verifies that file. At most once per batch of changes:
 * after a reminder, only new changes can trigger another.
 */
import type { Hook } from "../loop/contracts.ts";

const HOOK = "verification";

/** Files run_code can run (the steps ask to run code only when some changed file is code). */
const RUNNABLE = /\.(m?js|m?ts)$/;

/** The reminder for files changed and not verified, naming only the tools in `tools`. */
export function verificationReminder(files: readonly string[], tools: readonly string[]): string {
  const has = (name: string) => tools.includes(name);
  const code = files.some((file) => RUNNABLE.test(file));
  const steps = [
    ...(code && has("run_code") ? ["run the code you wrote (run_code)"] : []),
    has("read_file")
      ? `re-read each changed file (read_file${has("grep_files") ? ", or search it with grep_files" : ""})`
      : has("grep_files")
        ? "search each changed file (grep_files)"
        : "look over each change again",
    "check that every requirement of the request was addressed",
    "fix anything wrong",
  ];
  return `[harness] You modified files but haven't verified the changes: ${files.join(", ")}. Please verify before finishing: ${steps.join("; ")}. Only then give your final answer.`;
}

/** The verification gate. */
export const verificationHook: Hook = {
  name: HOOK,
  afterTool(ctx, _call, result) {
    const effects = result.effects;
    if (result.isError || !effects) return result;
    // A run after the last change verifies the whole batch.
    const pending = new Set(
      effects.ran !== undefined ? [] : (ctx.state.get<string[]>(HOOK, "pending") ?? []),
    );
    for (const path of [...(effects.read ?? []), ...(effects.searched ?? [])]) pending.delete(path);
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
    return { continueWith: verificationReminder(pending, ctx.tools) };
  },
};
