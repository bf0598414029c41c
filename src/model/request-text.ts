/**
 * A Messages API request's content as text for people to read (the CLI's `prompt` and the
 * console's inspector): a string as is; blocks one after another, text as text, a tool call as
 * `[tool call <name> <input JSON>]`, a tool result as `[tool result]` and its content, any other
 * block by its type. Pure: works on the parsed request JSON, whatever it holds.
 */

/** A content block as the request JSON has it (only the fields read here). */
export interface RequestBlock {
  type?: string;
  text?: string;
  name?: string;
  input?: unknown;
  content?: unknown;
}

/** A message's content, or the system prompt, as text to read. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content) ?? "";
  return content.map((block: RequestBlock) => blockText(block)).join("\n");
}

function blockText(block: RequestBlock): string {
  switch (block.type) {
    case "text":
      return block.text ?? "";
    case "tool_use":
      return `[tool call ${block.name} ${JSON.stringify(block.input)}]`;
    case "tool_result":
      return `[tool result]\n${contentText(block.content ?? "")}`;
    default:
      return `[${block.type} block]`;
  }
}
