/**
 * The MCP server of one agent, for one request: five tools over the caller's {@link TaskPort}.
 *   send_message  a message (a new conversation, or the one `contextId` names); waits for the answer
 *   reply         answers a task waiting for input (text, or the values of its form), or tells a
 *                 working task something (a live message: it reads it at its next step)
 *   get_task      a task as it is, or (`wait`) once it settles
 *   cancel_task   stops a task
 *   list_tasks    the caller's tasks with this agent, newest first
 * A call waits at most `waitSeconds` (MCP_WAIT_SECONDS), sending progress notifications when the
 * client asked for them; past that it answers with the task id and how to resume. The agent's
 * description and skills are in send_message's description. Served by the SDK's low-level
 * `Server` (mcp-tool.ts: each tool's zod input is both its listed JSON Schema and its check), not
 * its `McpServer`, whose zod v3 compatibility and JSON Schema converter were 23 KiB of the
 * Worker's gzipped bundle beside the zod it already has. What each tool's call does to the limits,
 * and the calls refused before the SDK reads them, are mcp-call.ts's.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AgentDefinition, AgentSkill } from "../agents/identity.ts";
import { callerMessage } from "../edge/errors.ts";
import type { TaskPort } from "../edge/task-port.ts";
import { newId } from "../platform/ids.ts";
import { jsonSchemaValidator } from "../platform/json-schema-validator.ts";
import { CONSENT_METADATA_KEY } from "../privacy/consent.ts";
import { asLiveMessage } from "../protocol/live-message.ts";
import { STATE_WORDS, stateOfWord } from "../protocol/task-states.ts";
import { idSchema, type Message, type Part, type StreamEvent } from "../protocol/wire.ts";
import { type FollowOptions, follow } from "./follow.ts";
import { type CallExtra, type McpTool, type McpToolSpec, mcpTool, serveTools } from "./mcp-tool.ts";
import { listResult, replyResult, taskResult } from "./tool-results.ts";

/** What the tools need besides the port. */
export interface McpToolsOptions {
  agent: AgentDefinition;
  /** The skills the caller sees (an authenticated caller's include the extended ones). */
  skills: readonly AgentSkill[];
  waitSeconds: number;
  /** Logs an error no A2A or HTTP error names (the caller sees "Internal error"). */
  onInternalError(error: unknown): void;
}

function sendDescription(agent: AgentDefinition, skills: readonly AgentSkill[]): string {
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description}`);
  return [
    `Send a message to the agent "${agent.name}" and wait for its answer. ${agent.description}`,
    lines.length ? `Skills:\n${lines.join("\n")}` : "",
    "Give contextId (from an earlier answer) to continue that conversation. A long task answers with its taskId before it is done: then call get_task with wait: true.",
  ]
    .filter(Boolean)
    .join("\n\n");
}

/** The follow options of one call: its deadline, the client's signal and its progress token. */
function followOptions(extra: CallExtra, waitSeconds: number): FollowOptions {
  const token = extra._meta?.progressToken;
  let step = 0;
  return {
    deadline: Date.now() + waitSeconds * 1000,
    signal: extra.signal,
    progress:
      token === undefined
        ? undefined
        : (message) =>
            extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: ++step, message },
            }),
  };
}

/** Follows `events` within the call's bound; the task as the wait left it, or the agent's reply. */
async function waitFor(
  port: TaskPort,
  events: AsyncGenerator<StreamEvent, void, undefined>,
  options: FollowOptions,
  knownTaskId?: string,
): Promise<CallToolResult> {
  const followed = await follow(events, options);
  if ("reply" in followed) return replyResult(followed.reply);
  const taskId = "taskId" in followed ? followed.taskId : knownTaskId;
  if (!taskId) throw new Error("the send made no task");
  const settled = "settled" in followed && followed.settled;
  return taskResult(await port.get(taskId), !settled);
}

const userMessage = (
  parts: Part[],
  ids: { contextId?: string; taskId?: string },
  consent: string | undefined,
): Message => ({
  messageId: newId(),
  role: "ROLE_USER",
  parts,
  ...ids,
  ...(consent ? { metadata: { [CONSENT_METADATA_KEY]: consent } } : {}),
});

/** The argument that carries an anonymous caller's consent (privacy/consent.ts). */
const consentArg = () =>
  z
    .string()
    .max(200)
    .optional()
    .describe(
      "Where the service asks for consent to its privacy policy: the policy version you consent to",
    );

/**
 * `run` with its failures as tool errors: an A2A error (task not found, not cancelable...) or an
 * HTTP error (consent) says what it is; anything else is logged and says "Internal error" (the
 * one scrub: edge/errors.ts).
 */
function guarded<A>(
  onInternalError: (error: unknown) => void,
  run: (args: A, extra: CallExtra) => Promise<CallToolResult>,
): (args: A, extra: CallExtra) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      return await run(args, extra);
    } catch (error) {
      const text = callerMessage(error, onInternalError);
      return { content: [{ type: "text", text }], isError: true };
    }
  };
}

/** The five tools of `options.agent` over `port`. */
function faceTools(port: TaskPort, options: McpToolsOptions): McpTool[] {
  const { agent, waitSeconds } = options;
  const tool = <S extends z.ZodObject>(spec: McpToolSpec<S>) =>
    mcpTool({ ...spec, run: guarded(options.onInternalError, spec.run) });
  return [
    tool({
      name: "send_message",
      title: `Ask ${agent.name}`,
      description: sendDescription(agent, options.skills),
      input: z.object({
        text: z.string().min(1).describe("The message"),
        contextId: idSchema()
          .optional()
          .describe("The conversation to continue (from an earlier answer)"),
        privacyConsent: consentArg(),
      }),
      run: async ({ text, contextId, privacyConsent }, extra) =>
        waitFor(
          port,
          port.send(userMessage([{ text }], contextId ? { contextId } : {}, privacyConsent)),
          followOptions(extra, waitSeconds),
        ),
    }),
    tool({
      name: "reply",
      title: `Answer ${agent.name}'s question`,
      description:
        "Answer a task that waits for input (state input-required): text, or the values of the form it asked for, or both; or tell a task that is still working something (it reads it at its next step). Waits for the task to go on like send_message.",
      input: z.object({
        taskId: idSchema().describe("The task that asked"),
        text: z.string().min(1).optional().describe("The answer in words"),
        values: z
          .record(z.string(), z.unknown())
          .optional()
          .describe("The form's field values, by field name"),
        privacyConsent: consentArg(),
      }),
      run: async ({ taskId, text, values, privacyConsent }, extra) => {
        const parts: Part[] = [
          ...(text ? [{ text }] : []),
          ...(values ? [{ data: values, mediaType: "application/json" }] : []),
        ];
        if (parts.length === 0)
          return { content: [{ type: "text", text: "Give text, values or both." }], isError: true };
        // Marked live: a working task queues it for its next step; a waiting one takes it as its answer.
        return waitFor(
          port,
          port.send(asLiveMessage(userMessage(parts, { taskId }, privacyConsent))),
          followOptions(extra, waitSeconds),
          taskId,
        );
      },
    }),
    tool({
      name: "get_task",
      title: "Read a task",
      description:
        "A task of this agent: its state and answer, or the question it waits on. With wait: true, waits (within a bound) until it settles.",
      input: z.object({
        taskId: idSchema(),
        wait: z.boolean().optional().describe("Wait until the task is done or asks for input"),
      }),
      run: async ({ taskId, wait }, extra) => {
        if (!wait) return taskResult(await port.get(taskId));
        return waitFor(port, port.follow(taskId), followOptions(extra, waitSeconds), taskId);
      },
    }),
    tool({
      name: "cancel_task",
      title: "Cancel a task",
      description: "Stops a task of this agent that is still working or waiting for input.",
      input: z.object({ taskId: idSchema() }),
      run: async ({ taskId }) => taskResult(await port.cancel(taskId)),
    }),
    tool({
      name: "list_tasks",
      title: "List tasks",
      description:
        "Your tasks with this agent, newest first; contextId narrows to one conversation (an anonymous caller must name one).",
      input: z.object({
        contextId: idSchema().optional(),
        state: z.enum(STATE_WORDS).optional().describe("Only tasks in this state"),
        pageSize: z.number().int().min(1).max(100).optional(),
        pageToken: z.string().max(1000).optional(),
      }),
      run: async ({ contextId, state, pageSize, pageToken }) => {
        const status = state ? stateOfWord(state) : undefined;
        const page = await port.list({ contextId, status, pageSize, pageToken });
        return listResult(page.tasks, page.nextPageToken);
      },
    }),
  ];
}

/**
 * The MCP server of `options.agent` over `port`: the SDK's `Server` with the tools capability
 * (`listChanged`, as the SDK's `McpServer` declared it) and the face's tools.
 */
export function mcpServer(port: TaskPort, options: McpToolsOptions): Server {
  const { agent } = options;
  const server = new Server(
    { name: agent.name, version: agent.version },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: agent.description,
      jsonSchemaValidator,
    },
  );
  serveTools(server, faceTools(port, options));
  return server;
}
