/**
 * Tool-call caps (`TOOL_CALL_CAPS`, e.g. `web_fetch:10`): past a tool's cap in a task, the call
 * is answered without running, with a normal (not error) result telling the agent to work with
 * what it has, so the model does not retry. Counts live in hook state. Tool names come from the
 * model: only the cap table's own entries count (a tool named `constructor` or `__proto__` has no
 * cap), never a property the table inherits.
 */
import type { Hook } from "../loop/contracts.ts";

const HOOK = "caps";

/** The caps hook. */
export const capsHook: Hook = {
  name: HOOK,
  beforeTool(ctx, call) {
    const caps = ctx.config.toolCallCaps;
    const cap = Object.hasOwn(caps, call.name) ? caps[call.name] : undefined;
    if (cap === undefined) return undefined;
    const used = ctx.state.get<number>(HOOK, call.name) ?? 0;
    if (used < cap) {
      ctx.state.set(HOOK, call.name, used + 1);
      return undefined;
    }
    ctx.emit({
      kind: "cap_reached",
      text: `${call.name} reached its cap of ${cap} calls in this task`,
      tool: call.name,
      detail: `cap ${cap}`,
    });
    return {
      result: {
        content: `${call.name} has been used ${cap} times in this task, which is its limit. Do not call it again: work with the information you already have, and say in your answer what you could not check.`,
      },
    };
  },
};
