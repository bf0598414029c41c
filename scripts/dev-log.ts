/**
 * The lines `npm run dev` prints after its banner: what a change under agents/, shared/ or the
 * console's files did, the error of an agent that is not served, and which of wrangler's stderr
 * lines pass.
 * Contract: pure (no I/O, no Node imports); scripts/dev.ts and scripts/build-agents.ts print what
 * these return.
 */

/**
 * What a changed path is: an agent (`agents/<name>/...`; `file` when the path is in a folder of
 * it, its tools' or skills', so the line names the file) or another file (`shared/...` too).
 */
export type ChangeTarget = { agent: string; file?: string } | { file: string };

/** What became of a change once rebuilt: the agent's state, or the build's failure. */
export type ChangeOutcome = "served" | "broken" | "removed" | "failed";

/** The target of a path relative to the project root (`/` or the platform's separator). */
export function changeTarget(relativePath: string): ChangeTarget {
  const parts = relativePath.split(/[\\/]/).filter(Boolean);
  if (parts[0] === "agents" && parts[1] !== undefined && !parts[1].startsWith("."))
    return parts.length > 3 && (parts[2] === "tools" || parts[2] === "skills")
      ? { agent: parts[1], file: parts.join("/") }
      : { agent: parts[1] };
  return { file: parts.join("/") };
}

/** The line for a change once rebuilt. */
export function changeLine(target: ChangeTarget, outcome: ChangeOutcome): string {
  if (outcome === "failed") {
    const what = "agent" in target ? `agents/${target.agent}` : target.file;
    return `  ${what} changed: not rebuilt (above); the Worker keeps the last build`;
  }
  if (!("agent" in target)) return `  ${target.file} changed: rebuilt; the Worker reloads`;
  const file = target.file ?? `agents/${target.agent}/IDENTITY.md`;
  switch (outcome) {
    case "served":
      return `  ${file} changed: rebuilt; the Worker reloads`;
    case "broken":
      return `  ${file} changed: ${target.agent} is not served until the error above is fixed; the other agents are`;
    case "removed":
      return `  agents/${target.agent} removed: ${target.agent} is no longer served; the Worker reloads`;
  }
}

/** The build's line for an agent not served under `npm run dev` (the error has file:line:column). */
export function brokenAgentLine(error: string): string {
  return `${error} (not served until fixed; the other agents are served)`;
}

/**
 * The build's warning for an IDENTITY.md whose `model` is likely a typo (`warning`, from
 * src/agents/models.ts), at the line and column of the value (1:1 when the key is not found).
 */
export function modelWarningLine(file: string, text: string, warning: string): string {
  const lines = text.split("\n");
  const index = lines.findIndex((l) => /^model:/.test(l));
  const column = index < 0 ? 1 : (/^model:\s*/.exec(lines[index] ?? "")?.[0].length ?? 0) + 1;
  return `${file}:${index + 1 || 1}:${column}: warning: frontmatter.model: ${warning}`;
}

/** The Worker's warning that it runs on the scripted model (src/model/client.ts), once per isolate. */
const KEYLESS = /no ANTHROPIC_API_KEY: tasks run on the scripted local model/;

/** Terminal colour codes (wrangler colours its `[WARNING]` and `[ERROR]` lines). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts every colour code.
const ANSI = /\u001b\[[0-9;]*m/g;

/** A log field's value on one line: numbers and plain words as they are, anything else quoted. */
function fieldValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const line = text.split("\n")[0] ?? "";
  return /^[\w.:/@-]+$/.test(line) ? line : JSON.stringify(line);
}

/**
 * One of the Worker's structured log lines (src/platform/logging.ts), as wrangler prints it
 * (`▲ [WARNING] {"level":"warn","msg":...}`), in words: `▲ warn  <msg>  key=value ...` (a
 * stack's first line only). Any other line is returned as it is.
 */
export function readableLine(line: string): string {
  const plain = line.replace(ANSI, "");
  const start = plain.indexOf("{");
  if (start < 0 || !plain.trimEnd().endsWith("}")) return line;
  let entry: unknown;
  try {
    entry = JSON.parse(plain.slice(start));
  } catch {
    return line;
  }
  if (typeof entry !== "object" || entry === null) return line;
  const { level, msg, ...fields } = entry as Record<string, unknown>;
  if (typeof level !== "string" || typeof msg !== "string") return line;
  const mark = level === "error" ? "✘" : level === "warn" ? "▲" : "·";
  const rest = Object.entries(fields).map(([key, value]) => `${key}=${fieldValue(value)}`);
  return [`${mark} ${level}  ${msg}`, ...rest].join("  ");
}

/**
 * A filter of wrangler's stderr lines (the line to print, or null), for one `npm run dev` session.
 * It drops wrangler's note that cron events do not fire locally (npm run dev ignores them and says
 * how to run the cron's work; the note names the unauthenticated local URL) with its indented
 * lines, and the keyless warning (each reload starts a new isolate that warns again, and the
 * banner already says it); the Worker's JSON log lines are put in words ({@link readableLine}).
 */
export function stderrFilter(): (line: string) => string | null {
  let skipping = false;
  return (line) => {
    if (/Scheduled Workers are not automatically triggered/.test(line)) {
      skipping = true;
      return null;
    }
    // The note's own lines are indented; the first other line ends it.
    if (skipping && (line.startsWith("  ") || line.trim() === "")) return null;
    skipping = false;
    if (KEYLESS.test(line)) return null;
    return readableLine(line);
  };
}
