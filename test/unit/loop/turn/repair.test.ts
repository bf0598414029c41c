import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../../src/loop/chat-message.ts";
import { INTERRUPTED_TOOL_RESULT, repairConversation } from "../../../../src/loop/turn/repair.ts";

const user = (text: string): ChatMessage => ({ role: "user", content: [{ type: "text", text }] });
const toolUse = (id: string): ChatMessage => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "read_file", input: { path: "a" } }],
});
const result = (id: string): ChatMessage => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "ok" }],
});

describe("repairConversation", () => {
  it("leaves a valid conversation unchanged", () => {
    const input = [user("hi"), toolUse("t1"), result("t1")];
    const out = repairConversation(input);
    expect(out.messages).toEqual(input);
    expect(out.addedResults + out.droppedResults).toBe(0);
  });

  it("answers an orphaned tool_use at the end with an error result", () => {
    const out = repairConversation([user("hi"), toolUse("t1")]);
    expect(out.addedResults).toBe(1);
    expect(out.messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "t1",
          is_error: true,
          content: INTERRUPTED_TOOL_RESULT,
        },
      ],
    });
  });

  it("puts the missing results first in a following user message", () => {
    const out = repairConversation([user("hi"), toolUse("t1"), user("and then?")]);
    const next = out.messages[2];
    expect(next?.role).toBe("user");
    const content = next?.content as Array<{ type: string }>;
    expect(content.map((b) => b.type)).toEqual(["tool_result", "text"]);
  });

  it("repairs only the ids that are missing when several tools were called", () => {
    const twoCalls: ChatMessage = {
      role: "assistant",
      content: [
        { type: "tool_use", id: "a", name: "x", input: {} },
        { type: "tool_use", id: "b", name: "y", input: {} },
      ],
    };
    const out = repairConversation([user("go"), twoCalls, result("a")]);
    expect(out.addedResults).toBe(1);
    const ids = ((out.messages[2]?.content as Array<{ tool_use_id: string }> | undefined) ?? [])
      .map((b) => b.tool_use_id)
      .sort();
    expect(ids).toEqual(["a", "b"]);
  });

  it("drops tool results nobody asked for and merges what that joins", () => {
    const out = repairConversation([
      user("hi"),
      result("ghost"),
      { role: "assistant", content: "x" },
    ]);
    expect(out.droppedResults).toBe(1);
    expect(out.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("merges consecutive user messages and starts with a user message", () => {
    const out = repairConversation([
      { role: "assistant", content: "earlier" },
      user("a"),
      user("b"),
    ]);
    expect(out.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(out.messages[2]?.content).toHaveLength(2);
  });
});
