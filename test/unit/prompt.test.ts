import { describe, expect, it } from "vitest";
import { bundledAgents } from "../../src/agents/registry.ts";
import { systemPrompt } from "../../src/loop/prompt.ts";

const agent = bundledAgents().get("assistant");
if (!agent) throw new Error("no assistant");
const entries = Array.from({ length: 25 }, (_, i) => ({
  path: `f${i}.md`,
  size: 10 + i,
  updatedAt: "",
}));
const base = {
  agent,
  tools: [
    "read_file",
    "write_file",
    "progress_read",
    "progress_update",
    "write_todos",
    "memory_write",
  ],
  memory: { shared: "House style: British spelling.", user: "Prefers short answers." },
  environment: {
    entries,
    total: 25,
    remaining: ["Write the summary"],
    handoff: "# Handoff\nDid the outline.",
  },
  now: new Date("2026-11-21T22:05:00Z"),
  timeZone: "Europe/Berlin",
};

describe("system prompt", () => {
  it("orders stable, memory and volatile parts, with cache breakpoints on the first two", () => {
    const blocks = systemPrompt(base);
    expect(blocks).toHaveLength(3);
    expect(blocks.map((b) => Boolean(b.cache_control))).toEqual([true, true, false]);
    expect(blocks[0]?.text.startsWith(agent.systemPrompt)).toBe(true);
    expect(blocks[0]?.text).toContain("Tools you can use: read_file, write_file");
    expect(blocks[0]?.text).toContain("## Before you finish");
    expect(blocks[0]?.text).toContain("progress_read");
    expect(blocks[1]?.text).toContain("British spelling");
    expect(blocks[1]?.text).toContain("Prefers short answers.");
    expect(blocks[2]?.text).toContain("Workspace (25 files):");
    expect(blocks[2]?.text).toContain("- f19.md (29 bytes)");
    expect(blocks[2]?.text).not.toContain("f20.md");
    expect(blocks[2]?.text).toContain("- and 5 more");
    expect(blocks[2]?.text).toContain("- Write the summary");
    expect(blocks[2]?.text).toContain("Did the outline.");
    expect(blocks[2]?.text).toMatch(
      /Current date and time: Saturday, 21\/11\/2026, 23:05 \(Europe\/Berlin\)/,
    );
  });

  it("keeps the stable part identical across turns, so it can be cached", () => {
    const later = systemPrompt({
      ...base,
      now: new Date("2026-11-22T10:00:00Z"),
      environment: { ...base.environment, total: 3, entries: entries.slice(0, 3) },
    });
    expect(later[0]?.text).toBe(systemPrompt(base)[0]?.text);
  });

  it("mentions only tools the agent has, leaves out empty memory, and says when the workspace is unreadable", () => {
    const blocks = systemPrompt({
      ...base,
      tools: [],
      memory: { shared: null, user: "  " },
      environment: null,
    });
    expect(blocks).toHaveLength(2);
    expect(blocks[0]?.text).toContain("You have no tools in this deployment");
    expect(blocks[0]?.text).not.toContain("progress_update");
    expect(blocks[1]?.text).toContain("The workspace could not be read just now.");
  });
});
