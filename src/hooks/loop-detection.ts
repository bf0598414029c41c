/**
 * Loop detection (`LOOP_DETECTION_THRESHOLD`, default 3, 0 = off): counts successful writes and
 * edits of one path in a row; from the threshold on, each such result carries the guidance
 * "You've edited {path} {N} times. Consider stepping back: ..." and a `loop_warning` event.
 * The count resets when another file is written or edited, or when a verification runs (a
 * successful read_file, grep_files or run_code: a result with read, searched or ran effects, of
 * any file). Failed calls neither count nor reset: edit, failing run, edit, failing run ... is the
 * loop it is there to catch. Counts live in hook state, so they survive a restart.
 */
import type { Hook, ToolEffects } from "../loop/contracts.ts";

const HOOK = "loop-detection";

/** Whether a result's effects are a verification: something was read, searched or run. */
export function isVerification(effects: ToolEffects): boolean {
  return effects.read !== undefined || effects.searched !== undefined || effects.ran !== undefined;
}

/** The guidance a result carries once `path` was edited `count` times in a row. */
export function loopWarning(path: string, count: number): string {
  return `[harness] You've edited ${path} ${count} times. Consider stepping back: is your approach correct, or should you try a fundamentally different solution?`;
}

/** The loop detection hook. */
export const loopDetectionHook: Hook = {
  name: HOOK,
  afterTool(ctx, call, result) {
    const threshold = ctx.config.loopDetectionThreshold;
    const effects = result.effects;
    if (threshold === 0 || result.isError || !effects) return result;
    const before = ctx.state.get<Record<string, number>>(HOOK, "counts") ?? {};
    // One path is counted at a time: { path: count }, or {} after a verification.
    let counts = isVerification(effects) ? {} : before;
    let warning = "";
    for (const path of effects.wrote ?? []) {
      const count = (Object.hasOwn(counts, path) ? (counts[path] ?? 0) : 0) + 1;
      counts = { [path]: count };
      if (count < threshold) continue;
      ctx.emit({
        kind: "loop_warning",
        text: `${path} edited ${count} times in a row`,
        tool: call.name,
        path,
        detail: `${count} edits`,
      });
      warning += `\n\n${loopWarning(path, count)}`;
    }
    if (counts !== before) ctx.state.set(HOOK, "counts", counts);
    return warning ? { ...result, content: result.content + warning } : result;
  },
};
