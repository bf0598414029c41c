/**
 * The agent loop's contracts: what it asks of its collaborators and what they hand back. Tools
 * (tools/) and hooks (hooks/) implement {@link Tool} and {@link Hook}; sub-agent transports
 * (subagents/) implement {@link Subagents}, the remote-agent handle (remote/) {@link RemoteAgents};
 * a tool's or a hook's {@link HarnessEvent} goes on the
 * task's stream; a {@link Suspension} makes a tool call wait for a person or a child task.
 * Types only (the pinned event kinds are protocol/harness-event-kinds.ts's): the loop knows its
 * collaborators through this file alone.
 */
import type { SkillFolder } from "../agents/skill-folders.ts";
import type { RemoteAgentEntry } from "../config/agent-network.ts";
import type { Config } from "../config/config.ts";
import type { HarnessEventKind } from "../protocol/harness-event-kinds.ts";
import type { Part } from "../protocol/wire.ts";
import type { MemoryMode, WorkspaceApi, WsResult } from "../workspace/types.ts";
import type { ChatMessage } from "./chat-message.ts";

// Harness events: what tools and hooks publish on the task's stream

/** An event as the harness raises it (the agent is filled in by the task). */
export interface HarnessEvent {
  kind: HarnessEventKind;
  /** One short line for people. */
  text: string;
  tool?: string;
  path?: string;
  /** Machine-readable detail: a short string, or an object for structured kinds (plan). */
  detail: string | Record<string, unknown>;
  /** The tool call (`tool_use` id) a `tool_call` or `tool_result` event belongs to. */
  callId?: string;
  /** A `tool_result`: whether the call succeeded, and the characters of its output. */
  outcome?: { ok: boolean; chars: number };
}

// Suspensions: what a tool call may wait for

/** A JSON schema of a form's fields (an object schema). */
export type FormSchema = Record<string, unknown>;

/** What a call waits for. */
export type Suspension =
  | { kind: "question"; question: string; form?: FormSchema; authorization?: boolean }
  | { kind: "approval"; tool: string; input: unknown }
  | { kind: "child"; childTaskId: string; agent: string };

// Tools: what a tool is to the loop (names are a contract with models and clients)

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
  /**
   * When the step must be done (ms since the epoch): the alarm's wall time or the task's time
   * limit, whichever comes first. A tool that waits (a blocking remote call) stops waiting by
   * then. Absent: no bound.
   */
  deadline?: number;
  config: Config;
  /** The agent's workspace for this owner (workspace Durable Object). */
  workspace: WorkspaceApi;
  /** The knowledge base (D1, FTS5). */
  db: D1Database;
  /** The agent's memory (CONTEXT.md): the shared notes and this user's. */
  memory: MemoryAccess;
  /** Outbound HTTP for web_fetch (tests pass their own). */
  fetch: typeof fetch;
  /** The conversation's scratchpad, shared by its tasks and every sub-agent they start. */
  scratch: { bucket: R2Bucket; scratchId: string };
  /** Delegation to sub-agents. */
  subagents: Subagents;
  /** Remote A2A agents (registry and connections). */
  remote: RemoteAgents;
  /** Publishes a harness event on the task's stream. */
  emit(event: HarnessEvent): void;
  /**
   * Hands a workspace file to the task's clients as an artifact (attach_file); its artifact id
   * and whether the bytes went inline, or why it could not. Absent: the task has no clients to
   * hand files to.
   */
  attach?(file: AttachedFile): AttachOutcome;
  /** The agent's Agent Skills, which skill_load and skill_read read (none: no skills). */
  skills?: readonly SkillFolder[];
  /**
   * What the agent's frontmatter grants its tools in code (`tools.secrets`, `tools.bindings`): the
   * values found in the Worker's environment under those names.
   */
  grants?: {
    secrets: Readonly<Record<string, string>>;
    bindings: Readonly<Record<string, unknown>>;
  };
  /** The code sandbox for run_code (absent without a Worker Loader binding). */
  codeSandbox?: {
    loader: WorkerLoader;
    /** run_code's transpiler, in an isolate of its own (tools/run-code/transpiler.ts). */
    transpile: Transpile;
    /** Bindings the agent's frontmatter grants to the sandbox. */
    env: Record<string, unknown>;
    cpuMs: number;
    timeoutMs: number;
  };
}

/** The names run_code's transpiler gives the guard and the ran-marker in one run's modules. */
export interface GuardNames {
  guard: string;
  ran: string;
}

/** One file for run_code's transpiler: its path, its source, whether it may be a snippet. */
export interface SourceFile {
  path: string;
  source: string;
  script?: boolean;
}

/** A module's JavaScript, or why it cannot be loaded (a syntax error, with its line). */
export type Transpiled = { ok: true; js: string } | { ok: false; error: string };

/** Turns sources into sandbox modules: one `Transpiled` per file, in order. */
export type Transpile = (files: SourceFile[], names: GuardNames) => Promise<Transpiled[]>;

/** A workspace file as the agent attaches it as a result (attach_file). */
export interface AttachedFile {
  path: string;
  bytes: Uint8Array;
  mediaType: string;
  description?: string;
}

/** How an attachment went: its artifact and whether the bytes went inline, or why it did not. */
export type AttachOutcome =
  | { ok: true; artifactId: string; inline: boolean }
  | { ok: false; error: string };

/** An agent's memory as a task reads and writes it (see tools/state/memory.ts). */
export interface MemoryAccess {
  /** The agent's shared CONTEXT.md (admins write it), or null. */
  shared(): Promise<string | null>;
  /** This user's CONTEXT.md with the agent, or null. */
  user(): Promise<string | null>;
  /** Appends to or replaces this user's CONTEXT.md. */
  write(content: string, mode: MemoryMode): Promise<WsResult<{ chars: number }>>;
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
  /**
   * Running it changes nothing but its result (a read, a search): a call a restart cut off is
   * simply run again. Absent: the call may have effects, and a cut-off call is reported to the
   * model as one that may or may not have taken effect (loop/tool-calls.ts).
   */
  readOnly?: boolean;
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

// Hooks: optional phases around model calls, tool calls and completion

/** Durable per-task key/value state for hooks (counters, flags); survives restarts. */
export interface HookState {
  get<T>(hook: string, key: string): T | undefined;
  set(hook: string, key: string, value: unknown): void;
}

/** Facts every phase receives. */
export interface HookContext {
  taskId: string;
  agent: string;
  turn: number;
  state: HookState;
  config: Config;
  /** The names of the tools the agent has (hooks' guidance names only these). */
  tools: readonly string[];
  /** Tools that need a person's approval before each call (frontmatter `tools.requireApproval`). */
  requireApproval: readonly string[];
  /** Publishes a harness event on the task's stream (a hook intervention). */
  emit(event: HarnessEvent): void;
}

/** A tool call as hooks see it. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/**
 * What `beforeTool` may decide: run the call (undefined), answer it without running, or make it
 * wait for a person (the call runs, or is refused, once they answer).
 */
export type BeforeToolDecision = { result: ToolResult } | { suspend: Suspension } | undefined;

/** What `beforeComplete` may decide: let the task finish (undefined) or add a user turn and continue. */
export type BeforeCompleteDecision = { continueWith: string } | undefined;

/** A hook. Every phase is optional; phases run in registry order. */
export interface Hook {
  readonly name: string;
  beforeModelCall?(ctx: HookContext, messages: readonly ChatMessage[]): Promise<void> | void;
  afterModelCall?(
    ctx: HookContext,
    response: { stopReason: string | null; text: string },
  ): Promise<void> | void;
  beforeTool?(ctx: HookContext, call: ToolCall): Promise<BeforeToolDecision> | BeforeToolDecision;
  afterTool?(
    ctx: HookContext,
    call: ToolCall,
    result: ToolResult,
  ): Promise<ToolResult> | ToolResult;
  beforeComplete?(
    ctx: HookContext,
    answer: string,
  ): Promise<BeforeCompleteDecision> | BeforeCompleteDecision;
}

// Sub-agents: what the `task` tool and the parent's loop need, whatever the transport

/** A sub-agent type the `task` tool accepts. */
export interface SubagentType {
  name: string;
  description: string;
  /** `local` for an agent of this Worker, else the remote registry entry's name. */
  transport: string;
}

/** One delegation: who, what, and the tool call it answers (which makes starting idempotent). */
export interface SubagentCall {
  agent: string;
  description: string;
  prompt: string;
  callId: string;
}

/** Sub-agents as the parent task sees them. */
export interface Subagents {
  /** The types this task may delegate to (empty for a sub-agent's own task). */
  types(): SubagentType[];
  /** Starts (or finds, for a retried call) the child task; its id, or why it could not start. */
  start(
    call: SubagentCall,
  ): Promise<{ ok: true; childTaskId: string } | { ok: false; error: string }>;
  /** Passes a person's answer to a child that asked a question. */
  answer(childTaskId: string, parts: Part[]): Promise<void>;
  /** Cancels a child (best effort; retried by the caller's schedule). */
  cancel(childTaskId: string): Promise<void>;
}

// Remote agents: what the a2a_* tools and remote sub-agents reach, as remote/handle.ts serves it

/** Where a remote agent is and how far it is trusted. */
export interface RemoteTarget {
  /** Registry name, or the URL for an ad-hoc target. */
  label: string;
  /** The agent's base URL (its card is at `.well-known/agent-card.json` below it). */
  baseUrl: string;
  entry: RemoteAgentEntry | null;
}

/** Remote A2A agents as a task's tools see them. */
export interface RemoteAgents {
  registry(): RemoteAgentEntry[];
  connect(
    nameOrUrl: string,
  ): { ok: true; target: RemoteTarget; fetch: typeof fetch } | { ok: false; error: string };
}
