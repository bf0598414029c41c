/**
 * What a loop step gets from outside the task object: the token budget gate (reserve before each
 * model call with the owner's user object when a day or month budget applies, settle after) and
 * the run_code sandbox (the Worker Loader, with the bindings and limits the agent's frontmatter
 * grants).
 */
import type { AgentDefinition } from "../agents/identity.ts";
import type { Config } from "../config/config.ts";
import type { StepDeps } from "../loop/agent-loop.ts";
import type { ToolContext } from "../loop/contracts.ts";
import { budgetsFor, userObject } from "../users/limits.ts";
import type { TaskRuntime } from "./task-runtime.ts";

/**
 * Reserves and settles model calls against the task's and the owner's token budgets, counted by
 * the user object `countersKey` (`user:<owner>`, or `ip:<address>` for an anonymous caller's task).
 */
export function budgetGate(
  env: Env,
  config: Config,
  task: TaskRuntime,
  taskId: string,
  owner: string,
  countersKey: string,
): StepDeps["budget"] {
  const counters = userObject(env, countersKey);
  let key = "";
  return {
    reserve: async (estimate) => {
      const budgets = await budgetsFor(env, config, owner);
      const loop = task.loopState.get();
      const used =
        loop.usage.inputTokens +
        loop.usage.outputTokens +
        loop.usage.cacheReadTokens +
        loop.usage.cacheWriteTokens;
      if (budgets.taskTokens > 0 && used + estimate > budgets.taskTokens)
        return `This task reached its token budget (${used} of ${budgets.taskTokens} tokens used; the next model call needs up to ${estimate}).`;
      key = `${taskId}:${loop.turn}:${loop.attempt}`;
      // No day or month budget: nothing to reserve against; the settlement still counts the
      // tokens, so a budget set later starts from the true spend.
      if (budgets.dayTokens <= 0 && budgets.monthTokens <= 0) return null;
      const reserved = await counters.reserve(
        key,
        estimate,
        budgets.dayTokens,
        budgets.monthTokens,
      );
      if (reserved.ok) return null;
      const period = reserved.scope === "day" ? "daily" : "monthly";
      return `The ${period} token budget is spent (${reserved.used} of ${reserved.limit} tokens used; the next model call needs up to ${estimate}). It renews at the start of the next ${reserved.scope === "day" ? "day" : "month"} (UTC).`;
    },
    // Settled in the background: the next reservation must not wait for it, and seeing the
    // reservation instead of the settlement (if it arrives first) only over-counts.
    settle: async (tokens) => {
      if (key) task.background(counters.settle(key, tokens));
    },
  };
}

/** The run_code sandbox of `agent`, or nothing without a Worker Loader binding. */
export function codeSandboxFor(
  env: Env,
  agent: AgentDefinition,
  config: Config,
): Pick<ToolContext, "codeSandbox"> {
  if (!env.LOADER) return {};
  const bindings = env as unknown as Record<string, unknown>;
  return {
    codeSandbox: {
      loader: env.LOADER,
      env: Object.fromEntries(
        agent.code.bindings
          .filter((name) => name in bindings)
          .map((name) => [name, bindings[name]]),
      ),
      cpuMs: agent.code.cpuMs ?? config.runCode.cpuMs,
      timeoutMs: agent.code.timeoutMs ?? config.runCode.timeoutMs,
    },
  };
}
