/**
 * What a turn reaches outside the task object, each made from the task's facts alone: its
 * workspace (its root agent's, for the owner), the agent's memory as the task reads and writes it,
 * the run_code sandbox (the Worker Loader, with the bindings and limits the agent's frontmatter
 * grants) and the listing of the conversation's scratchpad.
 */
import type { AgentDefinition } from "../../agents/identity.ts";
import type { Config } from "../../config/config.ts";
import { envNamed } from "../../config/env-lookup.ts";
import type { MemoryAccess, ToolContext } from "../../loop/contracts.ts";
import { scratchPrefix } from "../../store/r2-keys.ts";
import { listPrefix } from "../../store/r2-prefix.ts";
import { sharedMemory } from "../../store/shared-memory.ts";
import { isolateTranspiler } from "../../tools/run-code/transpiler.ts";
import { workspaceFor } from "../../workspace/client.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import { lineageOf } from "../store/lineage.ts";
import type { TaskRecord } from "../store/task-store.ts";

/** The workspace a task works in: its root agent's, for its owner (sub-agents share it). */
export function taskWorkspace(env: Env, record: TaskRecord): WorkspaceApi {
  return workspaceFor(env.WORKSPACES, lineageOf(record).rootAgent, record.owner);
}

/**
 * The memory of `agent` as a task of `owner` reads and writes it: the shared file through the
 * isolate's copy (a refresh kept alive by `background`), the user's through the agent's
 * workspace object for the owner, its only writer.
 */
export function memoryAccess(
  env: Env,
  agent: string,
  owner: string,
  background: (work: Promise<void>) => void,
): MemoryAccess {
  const workspace = workspaceFor(env.WORKSPACES, agent, owner);
  return {
    shared: () => sharedMemory(env.FILES, agent, background),
    user: () => workspace.memory(),
    write: (content, mode) => workspace.memoryWrite(content, mode),
  };
}

/** The run_code sandbox of `agent`, or nothing without a Worker Loader binding. */
export function codeSandboxFor(
  env: Env,
  agent: AgentDefinition,
  config: Config,
): Pick<ToolContext, "codeSandbox"> {
  if (!env.LOADER) return {};
  return {
    codeSandbox: {
      loader: env.LOADER,
      transpile: isolateTranspiler(env.LOADER, env.ASSETS),
      env: Object.fromEntries(
        agent.code.bindings
          .map((name) => [name, envNamed(env, name)])
          .filter(([, value]) => value !== undefined),
      ),
      cpuMs: agent.code.cpuMs ?? config.runCode.cpuMs,
      timeoutMs: agent.code.timeoutMs ?? config.runCode.timeoutMs,
    },
  };
}

/**
 * What `agent`'s tools in code are given of the Worker's environment: the secrets (string values)
 * and bindings its frontmatter names, those that are set; nothing else.
 */
export function toolGrants(env: Env, agent: AgentDefinition): NonNullable<ToolContext["grants"]> {
  const found = (names: readonly string[]) =>
    names.flatMap((name) => {
      const value = envNamed(env, name);
      return value === undefined ? [] : [[name, value] as const];
    });
  return {
    secrets: Object.fromEntries(
      found(agent.tools.secrets).filter(
        (e): e is readonly [string, string] => typeof e[1] === "string",
      ),
    ),
    bindings: Object.fromEntries(found(agent.tools.bindings)),
  };
}

/** The files of the scratchpad `scratchId` of `owner` (at most `limit`) and how many there are. */
export async function scratchListing(
  bucket: R2Bucket,
  owner: string,
  scratchId: string,
  limit: number,
): Promise<{ files: Array<{ path: string; size: number }>; total: number }> {
  const prefix = scratchPrefix(owner, scratchId);
  const listed = await listPrefix(bucket, prefix);
  const files = listed.map((o) => ({ path: o.key.slice(prefix.length), size: o.size }));
  return { files: files.slice(0, limit), total: files.length };
}
