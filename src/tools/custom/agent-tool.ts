/**
 * The tool definition for agent authors: `agents/<agent>/tools/<tool>.ts` (and the shared
 * `tools/<tool>.ts`) export one tool as `export default defineAgentTool({...})`, imported from
 * `#harness/tool`. A name (the file's), a description, a zod input schema and a function given
 * the validated input and an {@link AgentToolContext}: the caller's workspace, the task's abort
 * signal, the secrets and bindings the agent's frontmatter grants (`tools.secrets`,
 * `tools.bindings`), and a `fetch` through the SSRF guard. It is built on the harness's own tool
 * definition (tools/input.ts), so the model sees the JSON Schema made from the zod schema and an
 * invalid input is refused with the fields at fault, as for every built-in tool; it then joins
 * the agent's tools in domain `custom` (tools/custom/custom-tools.ts), under the same filters,
 * hooks, approvals, caps, traces and tool search.
 * Contract: what this file exports is what an author may rely on; nothing else of the harness is
 * handed to a tool.
 */
import type { z } from "zod";
import { isToolExport, type ToolExport } from "../../agents/tool-export.ts";
import type { Tool, ToolContext, ToolResult } from "../../loop/contracts.ts";
import { guardedFetch } from "../../platform/guarded-fetch.ts";
import { currentTraceHeaders } from "../../trace/current-span.ts";
import { defineTool } from "../input.ts";

/** A file of the caller's workspace as listed. */
export interface AgentWorkspaceEntry {
  path: string;
  size: number;
  updatedAt: string;
}

/**
 * The caller's workspace with this agent (the files read_file and write_file reach). Paths are
 * relative (`notes/a.md`); a refusal (a bad path, a missing file, a file too large, a state file)
 * throws an Error with the workspace's message, which the model reads as the tool's error unless
 * the tool catches it. A write counts as the task's change (checkpoints, verification).
 */
export interface AgentWorkspace {
  /** The file's text (at most 2,000 lines or 200,000 characters, as read_file reads). */
  read(path: string): Promise<string>;
  /** Creates or replaces the file. */
  write(path: string, content: string): Promise<void>;
  /** The files under `prefix` (default: all), with their sizes. */
  list(prefix?: string): Promise<AgentWorkspaceEntry[]>;
}

/** What a tool in code is given for one call. */
export interface AgentToolContext {
  /** The caller's workspace with this agent. */
  workspace: AgentWorkspace;
  /** Aborts when the task is canceled or stopped (its time limit); pass it on to your own waits. */
  signal: AbortSignal;
  /**
   * The secrets and vars the agent's frontmatter grants (`tools.secrets: [NAME]`): only those,
   * and only those set (`wrangler secret put NAME`, `.dev.vars` locally).
   */
  secrets: Readonly<Record<string, string>>;
  /** The bindings the agent's frontmatter grants (`tools.bindings: [NAME]`), as the Worker has them. */
  bindings: Readonly<Record<string, unknown>>;
  /**
   * `fetch` through the SSRF guard: private, loopback and link-local hosts, single-label and
   * local names are refused (a thrown Error) unless the deployment sets WEB_FETCH_ALLOW_PRIVATE;
   * every redirect hop is checked, credentials are dropped on a redirect to another origin, and
   * the task's cancel aborts the request.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The task calling: its id, its conversation, the agent, the caller (owner) it runs for. */
  task: { id: string; contextId: string; agent: string; owner: string };
}

/** What a tool in code answers: text for the model, or text flagged as an error. */
export type AgentToolResult = string | { content: string; isError?: boolean };

/** A tool in code as its file declares it. */
export interface AgentToolSpec<T> {
  /** The tool's name: the file's name without `.ts` (a tool name: `a-z`, `0-9`, `_`, `-`). */
  name: string;
  /** What the model reads to decide when to call it. */
  description: string;
  /** Its input (a strict zod object; `.describe()` its fields): enforced before `run`. */
  input: z.ZodType<T>;
  /** The work. A thrown error becomes the tool's error result (`Tool "<name>" failed: ...`). */
  run(input: T, context: AgentToolContext): Promise<AgentToolResult> | AgentToolResult;
}

/** A tool in code, made by {@link defineAgentTool}: what a tool file exports by default. */
export interface AgentTool extends ToolExport {
  /** The tool the harness runs (domain `custom`). */
  readonly tool: Tool;
}

/** Whether `value` (a tool file's default export) is an {@link AgentTool}. */
export function isAgentTool(value: unknown): value is AgentTool {
  // Only defineAgentTool marks an export "agent-tool", and the tool it holds is a Tool.
  return isToolExport(value);
}

/** Defines a tool in code (the default export of `agents/<agent>/tools/<name>.ts`). */
export function defineAgentTool<T>(spec: AgentToolSpec<T>): AgentTool {
  const tool = defineTool({
    name: spec.name,
    domain: "custom",
    description: spec.description,
    input: spec.input,
    async run(input, context) {
      const wrote: string[] = [];
      const answer = await spec.run(input, agentToolContext(context, wrote));
      const result: ToolResult = typeof answer === "string" ? { content: answer } : { ...answer };
      return wrote.length > 0 ? { ...result, effects: { wrote } } : result;
    },
  });
  return { kind: "agent-tool", name: spec.name, tool };
}

/** The context of one call, from the harness's; the workspace's writes are noted in `wrote`. */
function agentToolContext(context: ToolContext, wrote: string[]): AgentToolContext {
  const workspace = context.workspace;
  const meta = { taskId: context.taskId, agent: context.agent };
  const send = context.fetch;
  const headers = context.config.trace.webFetchTraceparent
    ? currentTraceHeaders
    : (): Record<string, string> => ({});
  return {
    workspace: {
      read: async (path) => settled(await workspace.read(path)).content,
      write: async (path, content) => {
        settled(await workspace.write(path, content, meta));
        wrote.push(path);
      },
      list: async (prefix) => settled(await workspace.list(prefix)).entries,
    },
    signal: context.signal,
    secrets: context.grants?.secrets ?? {},
    bindings: context.grants?.bindings ?? {},
    fetch: guardedFetch(
      (url, init) => {
        const traced = new Headers(init?.headers);
        for (const [name, value] of Object.entries(headers())) traced.set(name, value);
        return send(url, { ...init, headers: traced });
      },
      { allowPrivate: context.config.webFetchAllowPrivate },
      context.signal,
    ),
    task: {
      id: context.taskId,
      contextId: context.contextId,
      agent: context.agent,
      owner: context.owner,
    },
  };
}

function settled<T>(result: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!result.ok) throw new Error(result.error);
  return result.value;
}
