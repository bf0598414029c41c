/**
 * run_code in tests: a tool context whose workspace is a fresh owner's and whose sandbox is the
 * test Worker's loader, a runner of the tool with it, files written for it, and the first line
 * of what it answers.
 */
import { env } from "cloudflare:workers";
import type { ToolContext, ToolResult } from "../../src/loop/contracts.ts";
import { runCodeTool } from "../../src/tools/run-code/run-code.ts";
import { isolateTranspiler } from "../../src/tools/run-code/transpiler.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import type { WorkspaceObject } from "../../src/workspace/workspace-object.ts";
import { ok } from "./results.ts";
import { toolContext } from "./tool-context.ts";

const ns = env.WORKSPACES as unknown as DurableObjectNamespace<WorkspaceObject>;

/** A tool context for `owner` with run_code limits. */
export function context(
  owner: string,
  limits: { cpuMs?: number; timeoutMs?: number } = {},
): ToolContext {
  return toolContext({
    taskId: `task-${owner}`,
    contextId: "ctx-code",
    owner,
    workspace: workspaceFor(ns, "assistant", owner),
    scratch: { bucket: env.FILES, scratchId: "code-test" },
    codeSandbox: {
      loader: env.LOADER,
      transpile: isolateTranspiler(env.LOADER, env.ASSETS),
      env: {},
      cpuMs: limits.cpuMs ?? 1_000,
      timeoutMs: limits.timeoutMs ?? 5_000,
    },
  });
}

/** A fresh owner. */
export const owner = () => `code-${crypto.randomUUID().slice(0, 8)}`;
/** Runs run_code. */
export const run = (input: Record<string, unknown>, ctx = context(owner())): Promise<ToolResult> =>
  runCodeTool.run(input, ctx);

/**
 * Writes `files` (path -> content) into `ctx`'s workspace as its task does (`harness: true`: as
 * the harness does, which may write a state file); each write must succeed.
 */
export async function writeFiles(
  ctx: ToolContext,
  files: Record<string, string>,
  options: { harness?: boolean } = {},
): Promise<void> {
  for (const [path, content] of Object.entries(files))
    ok(await ctx.workspace.write(path, content, { taskId: ctx.taskId, ...options }));
}

/** The first line of run_code's answer: exit code, timing and, for tests, their counts. */
export const headline = (result: ToolResult): string => result.content.split("\n")[0] ?? "";
