/**
 * A tool context for tests that call tools directly: the test Worker's D1 and R2, config from its
 * vars, no workspace, no sub-agents or remote agents, events dropped. `overrides` replace fields.
 */
import { env } from "cloudflare:workers";
import { loadConfig } from "../../src/config/config.ts";
import type { ToolContext } from "../../src/loop/contracts.ts";
import { memoryAccess } from "../../src/task/turn/turn-resources.ts";
import type { WorkspaceApi } from "../../src/workspace/types.ts";
import { NO_REMOTE, NO_SUBAGENTS } from "./no-subagents.ts";

/** A context for one tool call; fields of `overrides` win. */
export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  // The agent's memory through the test Worker's workspace objects (made at first use: the
  // default owner claim names no workspace).
  const memory = () =>
    memoryAccess(env, overrides.agent ?? "assistant", overrides.owner ?? "tool-test", () => {});
  return {
    taskId: "task-test",
    contextId: "ctx-test",
    agent: "assistant",
    owner: "anonymous",
    signal: new AbortController().signal,
    config: loadConfig(env),
    workspace: {} as WorkspaceApi,
    db: env.DB,
    memory: {
      shared: () => memory().shared(),
      user: () => memory().user(),
      write: (content, mode) => memory().write(content, mode),
    },
    fetch,
    scratch: { bucket: env.FILES, scratchId: "tool-test" },
    subagents: NO_SUBAGENTS,
    remote: NO_REMOTE,
    emit: () => {},
    ...overrides,
  };
}
