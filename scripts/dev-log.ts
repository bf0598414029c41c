/**
 * The lines `npm run dev` prints after its banner: what a change under agents/ or the console's
 * files did, the error of an agent that is not served, and which of wrangler's stderr lines pass.
 * Contract: pure (no I/O, no Node imports); scripts/dev.ts and scripts/build-agents.ts print what
 * these return.
 */

/** What a changed path is: an agent (`agents/<name>/...`) or another file. */
export type ChangeTarget = { agent: string } | { file: string };

/** What became of a change once rebuilt: the agent's state, or the build's failure. */
export type ChangeOutcome = "served" | "broken" | "removed" | "failed";

/** The target of a path relative to the project root (`/` or the platform's separator). */
export function changeTarget(relativePath: string): ChangeTarget {
  const parts = relativePath.split(/[\\/]/).filter(Boolean);
  if (parts[0] === "agents" && parts[1] !== undefined && !parts[1].startsWith("."))
    return { agent: parts[1] };
  return { file: parts.join("/") };
}

/** The line for a change once rebuilt. */
export function changeLine(target: ChangeTarget, outcome: ChangeOutcome): string {
  if (outcome === "failed") {
    const what = "agent" in target ? `agents/${target.agent}` : target.file;
    return `  ${what} changed: not rebuilt (above); the Worker keeps the last build`;
  }
  if (!("agent" in target)) return `  ${target.file} changed: rebuilt; the Worker reloads`;
  const file = `agents/${target.agent}/IDENTITY.md`;
  switch (outcome) {
    case "served":
      return `  ${file} changed: rebuilt; the Worker reloads`;
    case "broken":
      return `  ${file} changed: ${target.agent} is not served until the error above is fixed; the other agents are`;
    case "removed":
      return `  agents/${target.agent} removed: ${target.agent} is no longer served; the Worker reloads`;
  }
}

/** The build's line for an invalid IDENTITY.md under `npm run dev` (the error has file:line:column). */
export function brokenAgentLine(error: string): string {
  return `${error} (not served until fixed; the other agents are served)`;
}

/** The Worker's warning that it runs on the scripted model (src/model/client.ts), once per isolate. */
const KEYLESS = /no ANTHROPIC_API_KEY: tasks run on the scripted local model/;

/**
 * A filter of wrangler's stderr lines (true: print it), for one `npm run dev` session. It drops
 * wrangler's note that cron events do not fire locally (npm run dev ignores them and says how to
 * run the cron's work; the note names the unauthenticated local URL) with its indented lines,
 * and passes the keyless warning once: each reload starts a new isolate that warns again, and
 * the banner already says it.
 */
export function stderrFilter(): (line: string) => boolean {
  let skipping = false;
  let keylessSeen = false;
  return (line) => {
    if (/Scheduled Workers are not automatically triggered/.test(line)) {
      skipping = true;
      return false;
    }
    // The note's own lines are indented; the first other line ends it.
    if (skipping && (line.startsWith("  ") || line.trim() === "")) return false;
    skipping = false;
    if (KEYLESS.test(line)) {
      if (keylessSeen) return false;
      keylessSeen = true;
    }
    return true;
  };
}
