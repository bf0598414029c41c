/**
 * What the MCP face answers a tool call with: a task as an MCP tool result. The text leads with
 * what a person or a model needs (the answer, the question and its form, or why the task failed)
 * and ends with the ids and what to call next; `structuredContent` carries the same as fields.
 * Pure: no I/O.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { formIn, partsText } from "../protocol/parts.ts";
import { stateWord } from "../protocol/task-states.ts";
import type { Message, Task } from "../protocol/wire.ts";
import { ANSWER_ARTIFACT_ID } from "../task/runtime/answer-artifact.ts";

/** The task's answer: its `answer` artifact, else the text of its status message. */
function answerOf(task: Task): string {
  const artifact = task.artifacts?.find((a) => a.artifactId === ANSWER_ARTIFACT_ID);
  return partsText(artifact?.parts) || partsText(task.status.message?.parts);
}

/** The result of a tool call that ended with (or looked at) `task`; `waiting` if the wait ran out. */
export function taskResult(task: Task, waiting = false): CallToolResult {
  const state = stateWord(task.status.state);
  const ids = `taskId: ${task.id}\ncontextId: ${task.contextId}\nstate: ${state}`;
  const fields: Record<string, unknown> = { taskId: task.id, contextId: task.contextId, state };
  let lead: string;
  let next: string;
  switch (task.status.state) {
    case "TASK_STATE_COMPLETED":
      lead = answerOf(task);
      fields.answer = lead;
      next = `To continue the conversation, call send_message with contextId "${task.contextId}".`;
      break;
    case "TASK_STATE_INPUT_REQUIRED":
    case "TASK_STATE_AUTH_REQUIRED": {
      lead = partsText(task.status.message?.parts) || "The agent needs input to go on.";
      const form = formIn(task.status.message?.parts);
      fields.question = lead;
      if (form) {
        fields.form = form;
        lead += `\nForm (JSON schema): ${JSON.stringify(form)}`;
      }
      next = `Answer with the reply tool: taskId "${task.id}" and text${form ? " or values for the form's fields" : ""}.`;
      break;
    }
    case "TASK_STATE_FAILED":
    case "TASK_STATE_REJECTED":
    case "TASK_STATE_CANCELED":
      lead = partsText(task.status.message?.parts) || `The task is ${state}.`;
      fields.reason = lead;
      next = `To start again, call send_message (contextId "${task.contextId}" keeps the conversation).`;
      break;
    default:
      lead = waiting ? `The agent is still working on this (${state}).` : `The task is ${state}.`;
      next = `Call get_task with taskId "${task.id}" and wait: true for the answer, or cancel_task to stop it.`;
      fields.resume = { tool: "get_task", arguments: { taskId: task.id, wait: true } };
  }
  const failed =
    task.status.state === "TASK_STATE_FAILED" || task.status.state === "TASK_STATE_REJECTED";
  return {
    content: [{ type: "text", text: `${lead}\n\n${ids}\n${next}` }],
    structuredContent: fields,
    ...(failed ? { isError: true } : {}),
  };
}

/** The result of a send an agent answered with a message of its own (no task). */
export function replyResult(message: Message): CallToolResult {
  const text = partsText(message.parts);
  return {
    content: [{ type: "text", text }],
    structuredContent: {
      answer: text,
      ...(message.contextId ? { contextId: message.contextId } : {}),
    },
  };
}

/** The result of list_tasks: one line per task, and the token of the next page. */
export function listResult(tasks: readonly Task[], nextPageToken: string): CallToolResult {
  const lines = tasks.map((task) => {
    const last = partsText(task.history?.at(-1)?.parts).replace(/\s+/g, " ").slice(0, 80);
    return `${task.id}  ${stateWord(task.status.state)}  context ${task.contextId}${last ? `  “${last}”` : ""}`;
  });
  const more = nextPageToken ? `\nMore: call list_tasks with pageToken "${nextPageToken}".` : "";
  return {
    content: [{ type: "text", text: `${lines.join("\n") || "No tasks."}${more}` }],
    structuredContent: {
      tasks: tasks.map((t) => ({
        taskId: t.id,
        contextId: t.contextId,
        state: stateWord(t.status.state),
      })),
      nextPageToken,
    },
  };
}
