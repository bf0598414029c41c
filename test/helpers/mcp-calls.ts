/**
 * Calling an agent's MCP face with the official MCP client in tests, in workerd and in Node alike
 * (no bindings): the face's tools, the fields a task's tool result carries, and a tool call read as
 * its result, its fields and its text.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The tools of an agent's MCP face, sorted by name. */
export const FACE_TOOLS = ["cancel_task", "get_task", "list_tasks", "reply", "send_message"];

/** The `structuredContent` of a tool result about a task. */
export type TaskFields = {
  taskId: string;
  contextId: string;
  state: string;
  answer?: string;
  question?: string;
  form?: Record<string, unknown>;
  resume?: unknown;
};

/** The text of a tool result. */
export const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

/** Calls tool `name` with `args`; `onProgress` hears each progress notification's message. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onProgress?: (message: string) => void,
): Promise<{ result: CallToolResult; fields: TaskFields; text: string }> {
  const result = (await client.callTool(
    { name, arguments: args },
    undefined,
    onProgress ? { onprogress: (p) => onProgress(p.message ?? "") } : {},
  )) as CallToolResult;
  return { result, fields: result.structuredContent as TaskFields, text: textOf(result) };
}
