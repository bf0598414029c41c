import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../../src/loop/calls/tool-registry.ts";
import type { ChatMessage } from "../../../../src/loop/chat-message.ts";
import {
  compactionCut,
  estimateRequestTokens,
  estimateTokens,
  summaryMessage,
  summaryRequest,
} from "../../../../src/loop/prompt/compaction.ts";
import { allTools } from "../../../../src/tools/catalog.ts";

const text = (role: "user" | "assistant", chars: number): ChatMessage => ({
  role,
  content: [{ type: "text", text: "x".repeat(chars) }],
});
const toolUse = (id: string): ChatMessage => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "read_file", input: { path: "a" } }],
});
const toolResult = (id: string, chars: number): ChatMessage => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "y".repeat(chars) }],
});

describe("compaction planning", () => {
  it("does nothing under the budget", () => {
    expect(compactionCut([text("user", 400), text("assistant", 400)], 1_000, 100)).toBeNull();
  });

  it("keeps about half the budget of the newest messages, cutting at a clean start", () => {
    const messages = Array.from({ length: 20 }, (_, i) =>
      text(i % 2 === 0 ? "user" : "assistant", 400),
    );
    const cut = compactionCut(messages, 1_000, 0);
    expect(cut).not.toBeNull();
    const kept = messages.slice(cut ?? 0);
    expect(kept.reduce((a, m) => a + estimateTokens(m), 0)).toBeLessThanOrEqual(500);
  });

  it("never separates a tool call from its result", () => {
    const messages: ChatMessage[] = [text("user", 2_000)];
    for (let i = 0; i < 10; i++) messages.push(toolUse(`t${i}`), toolResult(`t${i}`, 800));
    const cut = compactionCut(messages, 1_500, 0) as number;
    expect(messages[cut]?.role).toBe("assistant");
    const kept = messages.slice(cut);
    const uses = kept.flatMap((m) =>
      typeof m.content === "string"
        ? []
        : m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])),
    );
    const results = kept.flatMap((m) =>
      typeof m.content === "string"
        ? []
        : m.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])),
    );
    expect(results.every((id) => uses.includes(id))).toBe(true);
  });

  it("builds the summary request and the replacing note", () => {
    const request = summaryRequest("m", [text("user", 10), toolUse("a"), toolResult("a", 10)]);
    const body = String((request.messages[0]?.content as string) ?? "");
    expect(body).toContain("[called read_file");
    expect(body).toContain("[tool result: yyyyyyyyyy]");
    // What the note must keep: goals, decisions with their reasons, and what is still open.
    expect(request.system).toContain("the user's goals and requests");
    expect(request.system).toContain("decisions taken and why");
    expect(request.system).toContain("files created or changed");
    expect(request.system).toContain("what is still open");
    const note = summaryMessage("Goals: X.", 3);
    expect(JSON.stringify(note)).toContain("Summary of the 3 earlier messages");
  });
});

describe("a request's estimate with its tools measured, not written", () => {
  it("is estimateTokens of the request, with tools and without", () => {
    const system = [{ type: "text", text: "You help. ".repeat(50) }];
    const messages = [text("user", 300), text("assistant", 901)];
    const registry = new ToolRegistry(allTools().all());
    const tools = registry.definitions();
    expect(estimateRequestTokens({ system, toolChars: registry.definitionChars(), messages })).toBe(
      estimateTokens({ system, tools, messages }),
    );
    expect(estimateRequestTokens({ system, toolChars: 0, messages })).toBe(
      estimateTokens({ system, messages }),
    );
  });
});
