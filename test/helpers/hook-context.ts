/** A hook context for unit tests: in-memory hook state, recorded events, config from vars. */
import { loadConfig } from "../../src/config/config.ts";
import type { HarnessEvent, HookContext } from "../../src/loop/contracts.ts";

/** The tools a test agent has unless a test says otherwise. */
export const TEST_TOOLS = ["write_file", "edit_file", "read_file", "grep_files", "run_code"];

/** A fresh context and the events its hooks emitted. */
export function hookContext(
  vars: Record<string, string> = {},
  requireApproval: string[] = [],
  tools: readonly string[] = TEST_TOOLS,
): {
  ctx: HookContext;
  events: HarnessEvent[];
} {
  const store = new Map<string, unknown>();
  const events: HarnessEvent[] = [];
  const ctx: HookContext = {
    taskId: "t1",
    agent: "assistant",
    turn: 0,
    config: loadConfig({ ANTHROPIC_API_KEY: "k", ...vars }),
    tools,
    requireApproval,
    state: {
      get: <T>(hook: string, key: string) => store.get(`${hook}/${key}`) as T | undefined,
      set: (hook, key, value) => void store.set(`${hook}/${key}`, value),
    },
    emit: (event) => void events.push(event),
  };
  return { ctx, events };
}
