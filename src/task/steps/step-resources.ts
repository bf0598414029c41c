/**
 * What a loop step gets: its dependencies (`StepDeps` of loop/agent-loop.ts) bound to the task's
 * stores, with what comes from outside the task object: the token budget gate (budget-gate.ts)
 * and the run_code sandbox (the Worker Loader, with the bindings and limits the agent's
 * frontmatter grants).
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../../agents/identity.ts";
import type { Config } from "../../config/config.ts";
import { envNamed } from "../../config/env-lookup.ts";
import { defaultHooks } from "../../hooks/index.ts";
import type { ToolRegistry } from "../../loop/calls/tool-registry.ts";
import type { HarnessEvent, MemoryAccess, ToolContext } from "../../loop/contracts.ts";
import type { StepDeps } from "../../loop/step-types.ts";
import { modelClient } from "../../model/client.ts";
import { streamTurn } from "../../model/stream-turn.ts";
import { userCounters } from "../../platform/object-names.ts";
import { scratchPrefix } from "../../store/r2-keys.ts";
import { listPrefix } from "../../store/r2-prefix.ts";
import { sharedMemory } from "../../store/shared-memory.ts";
import { runWorkspaceTests } from "../../tools/run-code/run-code.ts";
import { runTool as inToolSpan } from "../../trace/current-span.ts";
import { taskTraceOf } from "../../trace/task-trace.ts";
import { workspaceFor } from "../../workspace/client.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import type { EventSink } from "../runtime/status-change.ts";
import type { TaskState } from "../runtime/task-state.ts";
import type { TaskRecord } from "../store/task-store.ts";
import { budgetGate } from "./budget-gate.ts";
import type { SessionDeps } from "./environment-read.ts";

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

/** What a model step reads and changes in the task. */
export type SteppingTask = Pick<
  TaskState,
  | "unit"
  | "conversation"
  | "pending"
  | "loopState"
  | "hookState"
  | "background"
  | "budgetHint"
  | "modelCalls"
> &
  Pick<EventSink, "emitAnswerChunk">;

/** What one model step needs, gathered by the loop driver. */
export interface StepInputs {
  env: Env;
  config: Config;
  task: SteppingTask;
  record: TaskRecord;
  agent: AgentDefinition;
  signal: AbortSignal;
  /** When the step must be done (ToolContext.deadline); absent: no bound. */
  deadline?: number;
  system: TextBlockParam[];
  tools: ToolRegistry;
  workspace: WorkspaceApi;
  memory: MemoryAccess;
  /** The scratchpad the task shares (its conversation's, see lineage.ts). */
  scratchId: string;
  subagents: ToolContext["subagents"];
  remote: ToolContext["remote"];
  emit(event: HarnessEvent): void;
  /** Publishes an attached file as the task's artifact (attach_file); absent: no clients. */
  attach?: ToolContext["attach"];
}

/** The dependencies of one loop step (loop/agent-loop.ts `runStep`), bound to this task. */
export function stepDeps(input: StepInputs): StepDeps {
  const { env, config, task, record, agent, signal, emit } = input;
  return {
    agent,
    system: input.system,
    limits: {
      maxTurns: Math.min(config.maxTurns, agent.maxTurns),
      idleTimeoutMs: config.modelIdleTimeoutMs,
      maxRetries: config.modelMaxRetries,
      retryBaseMs: config.modelRetryBaseMs,
      maxToolCallsPerTurn: config.maxToolCallsPerTurn,
    },
    signal,
    tools: input.tools,
    toolContext: {
      taskId: record.id,
      contextId: record.contextId,
      agent: agent.name,
      owner: record.owner,
      signal,
      ...(input.deadline === undefined ? {} : { deadline: input.deadline }),
      config,
      workspace: input.workspace,
      db: env.DB,
      memory: input.memory,
      fetch: (input, init) => fetch(input, init),
      scratch: { bucket: env.FILES, scratchId: input.scratchId },
      subagents: input.subagents,
      remote: input.remote,
      emit,
      ...(input.attach ? { attach: input.attach } : {}),
      skills: agent.skillFolders,
      grants: toolGrants(env, agent),
      ...codeSandboxFor(env, agent, config),
    },
    hooks: defaultHooks(),
    hookContext: {
      taskId: record.id,
      agent: agent.name,
      state: task.hookState,
      config,
      tools: input.tools.names(),
      requireApproval: agent.tools.requireApproval,
      emit,
    },
    callModel: (params, onText) =>
      streamTurn(modelClient(config), params, {
        idleTimeoutMs: config.modelIdleTimeoutMs,
        signal,
        onText,
      }),
    loadConversation: () => task.conversation.load(),
    appendConversation: (message, contextSeq) => task.conversation.append(message, contextSeq),
    pendingCalls: () => task.pending.get(),
    setPendingCalls: (pending) => task.pending.set(pending),
    loopState: () => task.loopState.get(),
    patchLoopState: (changes) => void task.loopState.patch(changes),
    // A delta writes itself (its rows, its chunk event), never the answer so far; a replacement
    // (a retry that diverged) writes the turn's text once.
    emitAnswer: (action, turnShown) => {
      if (signal.aborted) return;
      task.unit.run(() => {
        const loop = task.loopState.get();
        if (action.kind === "append") {
          task.loopState.appendTurnText(action.text);
          if (!loop.answerStarted) task.loopState.patch({ answerStarted: true });
          task.emitAnswerChunk(action.text, loop.answerStarted, false);
        } else {
          task.loopState.patch({ turnText: turnShown, answerStarted: true });
          task.emitAnswerChunk(loop.answerText + action.text, false, false);
        }
      });
    },
    transaction: (fn) => task.unit.run(fn),
    recordModelCall: (call) => task.modelCalls.record(call),
    aroundTool: (callId, run) => inToolSpan(taskTraceOf(record), callId, run),
    budget: budgetGate(env, config, task, record, record.counters ?? userCounters(record.owner)),
  };
}

/**
 * What the session start needs (see session-start.ts): the regression run through run_code's
 * sandbox when the agent has run_code, the conversation's scratchpad listing when it has the
 * scratchpad.
 */
export function sessionDeps(input: {
  env: Env;
  config: Config;
  agent: AgentDefinition;
  tools: readonly string[];
  record: TaskRecord;
  scratchId: string;
  workspace: WorkspaceApi;
  emit(event: HarnessEvent): void;
}): SessionDeps {
  const { env, config, agent, tools, record, workspace } = input;
  const sandbox = codeSandboxFor(env, agent, config).codeSandbox;
  const prefix = scratchPrefix(record.owner, input.scratchId);
  return {
    config,
    task: { taskId: record.id, agent: agent.name },
    emit: input.emit,
    ...(sandbox && tools.includes("run_code")
      ? {
          runTests: (tests, wallMs) =>
            runWorkspaceTests({ workspace, config, codeSandbox: sandbox }, tests, wallMs),
        }
      : {}),
    ...(tools.includes("scratch_read")
      ? {
          scratch: async (limit) => {
            const listed = await listPrefix(env.FILES, prefix);
            const files = listed.map((o) => ({ path: o.key.slice(prefix.length), size: o.size }));
            return { files: files.slice(0, limit), total: files.length };
          },
        }
      : {}),
  };
}
