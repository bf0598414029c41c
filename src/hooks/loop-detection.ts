/**
 * Loop detection (`LOOP_DETECTION_THRESHOLD`, 0 = off): counts writes and edits per path in a
 * row; when one path reaches the threshold, the tool result carries guidance naming the path and
 * the count and asking the agent to step back. Editing another file, or reading or searching
 * this one, resets its count. Counts live in hook state, so they survive a restart.
 */
import type { Hook } from "../loop/contracts.ts";

const HOOK = "loop-detection";

/** The loop detection hook. */
export const loopDetectionHook: Hook = {
  name: HOOK,
  afterTool(ctx, call, result) {
    const threshold = ctx.config.loopDetectionThreshold;
    const effects = result.effects;
    if (threshold === 0 || result.isError || !effects) return result;
    const counts = ctx.state.get<Record<string, number>>(HOOK, "counts") ?? {};
    for (const path of [...(effects.read ?? []), ...(effects.searched ?? [])]) delete counts[path];
    let warning = "";
    for (const path of effects.wrote ?? []) {
      for (const other of Object.keys(counts)) if (other !== path) delete counts[other];
      const count = (counts[path] ?? 0) + 1;
      counts[path] = count;
      if (count >= threshold) {
        ctx.emit({
          kind: "loop_warning",
          text: `${path} written ${count} times in a row`,
          tool: call.name,
          path,
          detail: `${count} writes`,
        });
        warning += `\n\n[harness] You have written ${path} ${count} times in a row without reading it back or working on anything else. Step back: re-read the file and the request, work out what is actually wrong, and change your approach instead of editing it again.`;
      }
    }
    ctx.state.set(HOOK, "counts", counts);
    return warning ? { ...result, content: result.content + warning } : result;
  },
};
