/**
 * The lines `npm run dev` prints after its banner (scripts/dev-log.ts), in Node without a server:
 * a broken agent says it is not served, a removed agent is one line with its path once, the
 * keyless warning and wrangler's cron note stay out, and the Worker's JSON log lines are words.
 */
import { describe, expect, it } from "vitest";
import {
  brokenAgentLine,
  changeLine,
  changeTarget,
  modelWarningLine,
  stderrFilter,
} from "../../scripts/dev-log.ts";

describe("npm run dev's log lines", () => {
  it("names the agent a change under agents/ is for, however deep the path", () => {
    expect(changeTarget("agents/writer/IDENTITY.md")).toEqual({ agent: "writer" });
    // A removed directory's own watcher reports the directory's name inside it.
    expect(changeTarget("agents/writer/writer")).toEqual({ agent: "writer" });
    expect(changeTarget("agents/writer")).toEqual({ agent: "writer" });
    expect(changeTarget("src/console/static/app.js")).toEqual({
      file: "src/console/static/app.js",
    });
    // A tool or a skill of the agent: the line names that file.
    expect(changeTarget("agents/writer/tools/lookup.ts")).toEqual({
      agent: "writer",
      file: "agents/writer/tools/lookup.ts",
    });
    expect(changeTarget("agents/writer/skills/tone/SKILL.md")).toEqual({
      agent: "writer",
      file: "agents/writer/skills/tone/SKILL.md",
    });
    expect(changeTarget("shared/tools/clock.ts")).toEqual({ file: "shared/tools/clock.ts" });
  });

  it("names the tool a change was to, and whether its agent is served", () => {
    const tool = changeTarget("agents/writer/tools/lookup.ts");
    expect(changeLine(tool, "served")).toBe(
      "  agents/writer/tools/lookup.ts changed: rebuilt; the Worker reloads",
    );
    expect(changeLine(tool, "broken")).toBe(
      "  agents/writer/tools/lookup.ts changed: writer is not served until the error above is fixed; the other agents are",
    );
  });

  it("says a broken agent is not served, and a removed one once, with its path once", () => {
    const writer = changeTarget("agents/writer/writer");
    expect(changeLine(writer, "served")).toBe(
      "  agents/writer/IDENTITY.md changed: rebuilt; the Worker reloads",
    );
    const broken = changeLine(writer, "broken");
    expect(broken).toContain("writer is not served until the error above is fixed");
    expect(broken).not.toContain("rebuilt");
    expect(changeLine(writer, "removed")).toBe(
      "  agents/writer removed: writer is no longer served; the Worker reloads",
    );
    expect(changeLine(writer, "failed")).toContain("the Worker keeps the last build");
    expect(brokenAgentLine("agents/w/IDENTITY.md:2:7: frontmatter.name: x")).toBe(
      "agents/w/IDENTITY.md:2:7: frontmatter.name: x (not served until fixed; the other agents are served)",
    );
  });

  it("places a model typo's warning at the model's line and column", () => {
    const text = "---\nname: w\nmodel:   claude-sonet-4-6\n---\nYou write.\n";
    expect(modelWarningLine("agents/w/IDENTITY.md", text, "typo")).toBe(
      "agents/w/IDENTITY.md:3:10: warning: frontmatter.model: typo",
    );
  });

  it("drops the keyless warning (the banner says it) and the cron note with its lines", () => {
    const shown = stderrFilter();
    const keyless =
      '{"level":"warn","msg":"no ANTHROPIC_API_KEY: tasks run on the scripted local model, not Claude"}';
    const lines = [
      keyless,
      "▲ [WARNING] Scheduled Workers are not automatically triggered during local development.",
      "  To manually trigger a scheduled event, run:",
      "",
      "a real error",
      `\u001b[33m▲ \u001b[43;33m[\u001b[43;30mWARNING\u001b[43;33m]\u001b[0m \u001b[1m${keyless}\u001b[0m`,
    ];
    expect(lines.map(shown).filter((l) => l !== null)).toEqual(["a real error"]);
  });

  it("puts the Worker's JSON log lines in words, as wrangler colours them or not", () => {
    const shown = stderrFilter();
    const failed = JSON.stringify({
      level: "warn",
      msg: "model call failed",
      task: "t-1",
      attempt: 2,
      error: "400 prompt is too long",
      stack: "Error: x\n    at y",
    });
    const coloured = `\u001b[33m▲ \u001b[43;33m[\u001b[43;30mWARNING\u001b[43;33m]\u001b[0m \u001b[1m${failed}\u001b[0m`;
    const words =
      '▲ warn  model call failed  task=t-1  attempt=2  error="400 prompt is too long"  stack="Error: x"';
    expect(shown(coloured)).toBe(words);
    expect(shown(failed)).toBe(words);
    expect(shown('{"level":"error","msg":"push gave up"}')).toBe("✘ error  push gave up");
    // Anything else stays as it is.
    expect(shown("{not json}")).toBe("{not json}");
    expect(shown('{"some":"json"}')).toBe('{"some":"json"}');
  });
});
