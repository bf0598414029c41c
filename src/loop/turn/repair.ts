/**
 * Makes a stored conversation acceptable to the Messages API before every model call: every
 * `tool_use` gets a `tool_result` in the next user message (orphans from an interrupted turn get
 * an error result), stray `tool_result`s are dropped, and consecutive same-role messages are
 * merged. Pure: no I/O.
 */

import type {
  ContentBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { ChatMessage } from "../chat-message.ts";

/** The text an orphaned tool call receives as its result. */
export const INTERRUPTED_TOOL_RESULT =
  "This tool call was interrupted before it returned (the task was restarted). Call it again if you still need its result.";

const blocks = (m: ChatMessage): ContentBlockParam[] =>
  typeof m.content === "string" ? [{ type: "text", text: m.content }] : [...m.content];

const toolUseIds = (m: ChatMessage | undefined): string[] =>
  m?.role === "assistant" ? blocks(m).flatMap((b) => (b.type === "tool_use" ? [b.id] : [])) : [];

function mergeSameRole(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) {
      const merged = [...blocks(prev), ...blocks(m)];
      // tool_result blocks must lead a user message
      if (m.role === "user") merged.sort((a, b) => rank(a) - rank(b));
      out[out.length - 1] = { role: m.role, content: merged };
    } else {
      out.push({ role: m.role, content: blocks(m) });
    }
  }
  return out;
}

const rank = (b: ContentBlockParam): number => (b.type === "tool_result" ? 0 : 1);

/** Result of {@link repairConversation}. */
export interface RepairResult {
  messages: ChatMessage[];
  /** Tool results added for orphaned tool calls. */
  addedResults: number;
  /** Tool results removed because no tool call asked for them. */
  droppedResults: number;
}

/** Returns a conversation the Messages API accepts; see the module header. */
export function repairConversation(input: readonly ChatMessage[]): RepairResult {
  let result = repairPass(input);
  // Dropping a stray result can join two assistant messages; one more pass settles that.
  for (let pass = 0; pass < 3; pass++) {
    const again = repairPass(result.messages);
    if (again.addedResults === 0 && again.droppedResults === 0) break;
    result = {
      messages: again.messages,
      addedResults: result.addedResults + again.addedResults,
      droppedResults: result.droppedResults + again.droppedResults,
    };
  }
  const first = result.messages[0];
  if (first && first.role !== "user") {
    result.messages.unshift({ role: "user", content: [{ type: "text", text: "(continued)" }] });
  }
  return result;
}

function repairPass(input: readonly ChatMessage[]): RepairResult {
  const merged = mergeSameRole(input);
  const out: ChatMessage[] = [];
  let addedResults = 0;
  let droppedResults = 0;
  // The iterator reads `merged` live: the results inserted after a message are visited next.
  for (const [i, message] of merged.entries()) {
    if (message.role === "user") {
      const expected = new Set(toolUseIds(out[out.length - 1]));
      const kept = blocks(message).filter((b) => {
        const keep = b.type !== "tool_result" || expected.has(b.tool_use_id);
        if (!keep) droppedResults += 1;
        return keep;
      });
      if (kept.length > 0) out.push({ role: "user", content: kept });
      continue;
    }
    out.push(message);
    const ids = toolUseIds(message);
    if (ids.length === 0) continue;
    const next = merged[i + 1];
    const answered = new Set(
      next?.role === "user"
        ? blocks(next).flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []))
        : [],
    );
    const missing: ToolResultBlockParam[] = ids
      .filter((id) => !answered.has(id))
      .map((id) => ({
        type: "tool_result",
        tool_use_id: id,
        is_error: true,
        content: INTERRUPTED_TOOL_RESULT,
      }));
    if (missing.length === 0) continue;
    addedResults += missing.length;
    if (next?.role === "user") {
      merged[i + 1] = { role: "user", content: [...missing, ...blocks(next)] };
    } else {
      merged.splice(i + 1, 0, { role: "user", content: missing });
    }
  }
  return { messages: mergeSameRole(out), addedResults, droppedResults };
}
