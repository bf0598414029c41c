/**
 * What a tool is to the agent loop: a name the model calls (names are a contract with models and
 * clients), a domain (for TOOLS_ENABLED and frontmatter filters), a JSON schema for its input,
 * and a function that returns text plus the effects hooks care about (paths written, read or
 * searched). Tools get the handles they need through {@link ToolContext}, never the whole Env.
 */
import type { Config } from "../config.ts";
import type { HarnessEvent } from "../loop/harness-events.ts";
import type { Suspension } from "../loop/suspension.ts";
import type { RemoteAgents } from "../remote/handle.ts";
import type { Subagents } from "../subagents/types.ts";
import type { WorkspaceApi } from "../workspace/types.ts";

/** What a call did to the workspace, for the verification gate and loop detection. */
export interface ToolEffects {
  /** Paths created or changed. */
  wrote?: string[];
  /** Paths read back. */
  read?: string[];
  /** Paths whose content a search went through (grep). */
  searched?: string[];
  /** Paths whose code ran (run_code). */
  ran?: string[];
}

/**
 * What a tool returns to the model. `isError` results pass through hooks unchanged. A result with
 * `suspend` is not returned yet: the call waits (for a person's answer) and the task pauses.
 */
export interface ToolResult {
  content: string;
  isError?: boolean;
  effects?: ToolEffects;
  suspend?: Suspension;
}

/** Per-call facts and handles a tool may use. */
export interface ToolContext {
  taskId: string;
  /** The id of the tool call being run (makes a delegation idempotent). */
  callId?: string;
  contextId: string;
  agent: string;
  owner: string;
  signal: AbortSignal;
  config: Config;
  /** The agent's workspace for this owner (workspace Durable Object). */
  workspace: WorkspaceApi;
  /** The knowledge base (D1, FTS5). */
  db: D1Database;
  /** R2, for memory files (CONTEXT.md). */
  files: R2Bucket;
  /** Outbound HTTP for web_fetch (tests pass their own). */
  fetch: typeof fetch;
  /** The root task's scratchpad, shared by it and every sub-agent it starts. */
  scratch: { bucket: R2Bucket; rootTaskId: string };
  /** Delegation to sub-agents. */
  subagents: Subagents;
  /** Remote A2A agents (registry and connections). */
  remote: RemoteAgents;
  /** Publishes a harness event on the task's stream. */
  emit(event: HarnessEvent): void;
  /** The code sandbox for run_code (absent without a Worker Loader binding). */
  codeSandbox?: {
    loader: WorkerLoader;
    /** Bindings the agent's frontmatter grants to the sandbox. */
    env: Record<string, unknown>;
    cpuMs: number;
    timeoutMs: number;
  };
}

/** A tool the model can call. */
export interface Tool {
  name: string;
  domain: string;
  description: string;
  inputSchema: {
    type: "object";
    properties?: Record<string, unknown>;
    required?: string[];
    additionalProperties?: boolean;
  };
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}
