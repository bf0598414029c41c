/**
 * The lines `npm run dev` prints after its banner (scripts/dev-log.ts), in Node without a server:
 * a broken agent says it is not served, a removed agent is one line with its path once, the
 * keyless warning passes once a session, and wrangler's cron note stays out.
 */
import { describe, expect, it } from "vitest";
import { brokenAgentLine, changeLine, changeTarget, stderrFilter } from "../../scripts/dev-log.ts";

describe("npm run dev's log lines", () => {
  it("names the agent a change under agents/ is for, however deep the path", () => {
    expect(changeTarget("agents/writer/IDENTITY.md")).toEqual({ agent: "writer" });
    // A removed directory's own watcher reports the directory's name inside it.
    expect(changeTarget("agents/writer/writer")).toEqual({ agent: "writer" });
    expect(changeTarget("agents/writer")).toEqual({ agent: "writer" });
    expect(changeTarget("src/console/static/app.js")).toEqual({
      file: "src/console/static/app.js",
    });
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

  it("passes the keyless warning once a session and drops the cron note with its lines", () => {
    const keep = stderrFilter();
    const keyless =
      '{"level":"warn","msg":"no ANTHROPIC_API_KEY: tasks run on the scripted local model, not Claude"}';
    const lines = [
      keyless,
      "▲ [WARNING] Scheduled Workers are not automatically triggered during local development.",
      "  To manually trigger a scheduled event, run:",
      "",
      "a real error",
      keyless,
      keyless,
    ];
    expect(lines.filter(keep)).toEqual([keyless, "a real error"]);
  });
});
