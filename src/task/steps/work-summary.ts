/**
 * The answer of a task whose model wrote no text, so that no task completes empty: what the task
 * did, composed by the harness from the task's own records (the harness events in its history:
 * every tool call and result), never by a model call. It names the files written or edited,
 * the tools run (and how many failed) and why the task stopped. Pure: no I/O.
 */
import { fieldOf, textField } from "../../platform/fields.ts";
import { HARNESS_EVENTS_EXTENSION } from "../../protocol/extensions.ts";
import type { Message } from "../../protocol/wire.ts";

/** The tools whose successful call changes a workspace file named by its `path` input. */
const FILE_TOOLS = new Set(["write_file", "edit_file"]);
/** Most files and tools named; the rest are counted. */
const MAX_LISTED = 20;
/** Most characters of a path shown. */
const PATH_CHARS = 200;

/** The first line of a composed answer (also how a client can tell one). */
export const WORK_SUMMARY_HEADING =
  "The agent finished without writing an answer. What the task did (from its records, written by the harness, not the model):";

interface ToolEvent {
  kind: "tool_call" | "tool_result";
  tool: string;
  path: string | undefined;
  text: string;
}

function toolEventOf(message: Message): ToolEvent | null {
  if (!message.extensions?.includes(HARNESS_EVENTS_EXTENSION)) return null;
  const data = message.parts.find((p) => p.data !== undefined)?.data;
  const kind = fieldOf(data, "kind");
  const tool = textField(data, "tool");
  if ((kind !== "tool_call" && kind !== "tool_result") || tool === undefined) return null;
  return {
    kind,
    tool,
    path: textField(data, "path"),
    text: message.parts.find((p) => p.text !== undefined)?.text ?? "",
  };
}

/** Whether a `tool_result` event reports a failure (its text, as hooks/tool-events.ts words it). */
function failed(event: ToolEvent): boolean {
  return event.text.startsWith(`${event.tool} failed`) || event.text.endsWith("did not finish");
}

/** A path as it may be shown in Markdown: one line, no backticks, bounded. */
function shownPath(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const clean = path.replace(/[\u0000-\u001f\u007f\u0060]/g, ""); // \u0060: the backtick
  return clean.length > PATH_CHARS ? `${clean.slice(0, PATH_CHARS)}…` : clean;
}

function listed(items: string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(", ");
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

/** What the task's tool calls did: the files changed and each tool's runs and failures. */
export function workDone(history: readonly Message[]): {
  files: string[];
  tools: Array<{ tool: string; runs: number; failures: number }>;
} {
  const calls = new Map<string, Array<string | undefined>>();
  const files = new Set<string>();
  const tools = new Map<string, { tool: string; runs: number; failures: number }>();
  for (const message of history) {
    const event = toolEventOf(message);
    if (!event) continue;
    const open = calls.get(event.tool) ?? [];
    calls.set(event.tool, open);
    if (event.kind === "tool_call") {
      open.push(event.path);
      continue;
    }
    // Calls run one at a time: a result answers the oldest open call of its tool.
    const path = open.shift();
    const count = tools.get(event.tool) ?? { tool: event.tool, runs: 0, failures: 0 };
    tools.set(event.tool, count);
    count.runs += 1;
    if (failed(event)) count.failures += 1;
    else if (FILE_TOOLS.has(event.tool) && path) files.add(shownPath(path));
  }
  return { files: [...files], tools: [...tools.values()] };
}

/** Why the task stopped, for a stop reason the status says nothing about. */
function stopWords(stopReason: string): string {
  if (stopReason === "end_turn")
    return "the model ended its turn without writing any text (stop reason `end_turn`).";
  if (stopReason === "stop_sequence")
    return "the model reached a stop sequence before writing any text.";
  return `the model stopped without writing any text (stop reason \`${stopReason}\`).`;
}

/**
 * The composed answer: {@link WORK_SUMMARY_HEADING}, the files changed, the tools run and why
 * the task stopped (`why`: the task's final status text when it has one).
 */
export function workSummary(
  history: readonly Message[],
  stopReason: string,
  why: string | undefined,
): string {
  const { files, tools } = workDone(history);
  const runs = tools.map(
    (t) => `${t.tool} ×${t.runs}${t.failures > 0 ? ` (${t.failures} failed)` : ""}`,
  );
  return [
    WORK_SUMMARY_HEADING,
    `- Files changed: ${files.length > 0 ? listed(files.map((f) => `\`${f}\``)) : "none"}`,
    `- Tools run: ${runs.length > 0 ? listed(runs) : "none"}`,
    `- Why it stopped: ${why?.trim() || stopWords(stopReason)}`,
  ].join("\n");
}
