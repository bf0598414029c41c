/**
 * How the CLI shows a task as it happens: answer text as it streams, one line per tool call,
 * hook intervention, plan change (and a line per step, tagged with the agent a step is delegated
 * to) and sub-agent delegation (the harness's events; any other agent's status messages as plain
 * lines), the state changes (a completed task's note, such as the limit that ended it, with its
 * line), and what an input-required pause asks. The answer is the `answer` artifact, shown once:
 * its echo as a status message (protocol/answer-echo.ts) is skipped. Works on the v1.0 JSON form
 * of events, whatever the agent's protocol version.
 */
import { isAnswerEcho } from "../src/protocol/answer-echo.ts";
import { COST_EXTENSION } from "../src/protocol/extensions.ts";
import { isLiveMessage } from "../src/protocol/live-message.ts";
import { stateWord } from "../src/protocol/task-states.ts";
import type { FormField } from "./form.ts";

type Json = Record<string, unknown>;
type Part = {
  text?: string;
  data?: Json;
  raw?: string;
  url?: string;
  filename?: string;
  metadata?: Json;
};
type Message = { parts?: Part[]; extensions?: string[] };

/** Where output goes; `line` starts on a fresh line. */
export interface Out {
  write(text: string): void;
  /** Whether color is wanted. */
  color: boolean;
}

const paint = (out: Out, code: string, text: string) =>
  out.color ? `\x1b[${code}m${text}\x1b[0m` : text;
const dim = (out: Out, text: string) => paint(out, "2", text);

const HARNESS_EXTENSION = "urn:a2a-edge-harness:ext:harness-events:v1";

/** The harness event of a status message, if it carries one. */
function harnessEvent(message: Message | undefined): { text: string; data: Json } | null {
  const parts = message?.parts ?? [];
  const data = parts.find(
    (p) =>
      p.data && (p.metadata?.extension === HARNESS_EXTENSION || typeof p.data.kind === "string"),
  )?.data;
  if (!data || data.kind === "form") return null;
  return { text: parts.find((p) => p.text !== undefined)?.text ?? "", data };
}

const ICON: Record<string, string> = {
  tool_call: "→",
  tool_result: "←",
  plan: "☰",
  progress: "✎",
  verification: "!",
  loop_warning: "!",
  cap_reached: "!",
  turn_limit: "!",
  time_limit: "!",
  output_truncated: "…",
  output_compacted: "…",
  checkpoint: "⎌",
  rollback: "⎌",
  compaction: "⇣",
  approval: "?",
  subagent: "⇢",
  remote: "⇢",
};

const STEP_MARK: Record<string, string> = { completed: "[x]", in_progress: "[~]", pending: "[ ]" };

/**
 * The steps of a `plan` event, one line each: its status mark, the tag of the agent it is
 * delegated to (a step of the planning agent itself has none), its text.
 */
export function planSteps(data: Json): string[] {
  const todos = (data.detail as { todos?: unknown } | undefined)?.todos;
  if (!Array.isArray(todos)) return [];
  return todos.map((todo: Json) => {
    const owner = typeof todo.agent === "string" && todo.agent !== data.agent ? todo.agent : "";
    const mark = STEP_MARK[String(todo.status)] ?? "[ ]";
    // One line each, whatever the model wrote: control characters (escapes too) become spaces.
    const text = String(todo.content ?? "").replace(/\p{Cc}+/gu, " ");
    return `${mark} ${owner ? `[${owner}] ` : ""}${text}`;
  });
}

/** A state as a word (src/protocol/task-states.ts: TASK_STATE_INPUT_REQUIRED -> input-required). */
export const stateName = (state: unknown) => stateWord(String(state ?? "unknown"));

/** What an input-required pause asks: the question and a form's fields, if any. */
export interface Question {
  text: string;
  fields: FormField[];
}

/** The question of a status message (input-required). */
export function questionOf(message: Message | undefined): Question {
  const parts = message?.parts ?? [];
  const text = parts
    .filter((p) => p.text !== undefined)
    .map((p) => p.text)
    .join("\n");
  const form = parts.find((p) => p.data?.kind === "form")?.data?.schema as
    | {
        properties?: Record<string, { type?: string; enum?: Array<string | number> }>;
        required?: string[];
      }
    | undefined;
  const fields = Object.entries(form?.properties ?? {}).map(([name, spec]) => ({
    name,
    type: spec.type ?? "string",
    ...(spec.enum ? { options: spec.enum } : {}),
    required: form?.required?.includes(name) ?? false,
  }));
  return { text, fields };
}

/** What the cost extension reports (src/trace/cost.ts). */
export interface TaskCost {
  usage: Record<string, number>;
  estimatedCostUsd: number;
  model: string;
  /** The scripted local model answered: priced as the model would be, nothing charged. */
  simulated?: boolean;
}

function costOf(metadata: unknown): TaskCost | undefined {
  const cost = (metadata as Record<string, unknown> | undefined)?.[COST_EXTENSION] as
    | TaskCost
    | undefined;
  return typeof cost?.estimatedCostUsd === "number" && cost.usage ? cost : undefined;
}

/** One line for people: a task's tokens and estimated cost. */
export function costLine(cost: TaskCost): string {
  const n = (key: string) => (cost.usage[key] ?? 0).toLocaleString("en-US");
  const calls = cost.usage.modelCalls ?? 0;
  const priced = cost.simulated
    ? `simulated: the scripted local model, nothing charged; priced as ${cost.model || "default"} would be`
    : `estimated at ${cost.model || "default"} list prices`;
  return `cost: ~$${cost.estimatedCostUsd.toFixed(4)}${cost.simulated ? " (simulated)" : ""} (${n("inputTokens")} in · ${n("outputTokens")} out · ${n("cacheReadTokens")} cache read · ${n("cacheWriteTokens")} cache write tokens; ${calls} model call${calls === 1 ? "" : "s"}; ${priced})`;
}

/** Renders one task's events; keeps the answer text as a client must (append or replace). */
export class TaskView {
  readonly #out: Out;
  #atLineStart = true;
  /** Text shown so far, per artifact id; the artifact being shown. */
  readonly #texts = new Map<string, string>();
  #current: string | null = null;
  taskId = "";
  contextId = "";
  state = "";
  /** The last status message (the question when the task waits for input, the error if it failed). */
  lastMessage: Message | undefined;
  /** The task's usage and estimated cost (the cost extension), once a status reported it. */
  cost: TaskCost | undefined;
  /** The text of a message the agent answered with instead of a task. */
  reply = "";
  /** Each artifact's name, per artifact id. */
  readonly #names = new Map<string, string>();
  /** The line shown for each file artifact (a file the agent attached), per artifact id. */
  readonly #files = new Map<string, string>();

  constructor(out: Out) {
    this.#out = out;
  }

  /** The answer: the `answer` artifact, else every text artifact shown. */
  get answer(): string {
    return this.#texts.get("answer") ?? [...this.#texts.values()].join("\n");
  }

  /** Whether the cursor is at the start of a line (for a progress line). */
  get atLineStart(): boolean {
    return this.#atLineStart;
  }

  #line(text: string): void {
    if (!this.#atLineStart) this.#out.write("\n");
    this.#out.write(`${text}\n`);
    this.#atLineStart = true;
  }

  #text(text: string): void {
    if (text === "") return;
    this.#out.write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  /** One stream event (v1.0 JSON: `{task}`, `{statusUpdate}`, `{artifactUpdate}`, `{message}`). */
  event(event: Json): void {
    if (event.task) this.#task(event.task as Json, true);
    else if (event.statusUpdate) this.#status(event.statusUpdate as Json);
    else if (event.artifactUpdate) this.#artifact(event.artifactUpdate as Json);
    else if (event.message) {
      const text = textOf(event.message as Message);
      this.reply += text;
      this.#text(text);
    }
  }

  #task(task: Json, announce: boolean): void {
    const status = (task.status ?? {}) as { state?: string; message?: Message };
    if (announce && this.taskId === String(task.id ?? "")) {
      // A resumed stream opens with the task again: only what it adds is shown.
      for (const artifact of (task.artifacts ?? []) as Json[]) this.#show(artifact, false, true);
      if (stateName(status.state) !== this.state) this.#status({ status });
      return;
    }
    this.taskId = String(task.id ?? "");
    this.contextId = String(task.contextId ?? "");
    this.state = stateName(status.state);
    this.lastMessage = status.message;
    this.cost = costOf(task.metadata) ?? this.cost;
    if (announce)
      this.#line(dim(this.#out, `task ${this.taskId} · context ${this.contextId} · ${this.state}`));
    for (const artifact of (task.artifacts ?? []) as Json[]) this.#show(artifact, false, true);
  }

  #status(update: Json): void {
    const status = (update.status ?? {}) as { state?: string; message?: Message };
    this.cost = costOf(update.metadata) ?? this.cost;
    const state = stateName(status.state);
    // The answer's echo repeats the answer artifact, which is shown already.
    if (isAnswerEcho(status.message)) return;
    // A message the person sent while the task worked (a live message): their own line.
    if (isLiveMessage(status.message)) {
      this.#line(paint(this.#out, "35", `  › you: ${textOf(status.message)}`));
      return;
    }
    const event = harnessEvent(status.message);
    if (event) {
      this.state = state;
      const kind = String(event.data.kind);
      const agent = event.data.agent ? dim(this.#out, ` [${event.data.agent}]`) : "";
      this.#line(
        `${paint(this.#out, "36", `  ${ICON[kind] ?? "·"} ${kind}`)} ${event.text}${agent}`,
      );
      if (kind === "plan") for (const step of planSteps(event.data)) this.#line(`      ${step}`);
      return;
    }
    if (state !== this.state) {
      this.state = state;
      this.lastMessage = status.message;
      this.stateLine();
      return;
    }
    const text = textOf(status.message);
    if (text) this.#line(dim(this.#out, `  · ${text}`));
  }

  /**
   * A completed status's own text (a limit's note): its text parts that do not repeat an
   * artifact already shown, for agents that put their answer in the final status message too.
   */
  #note(message: Message | undefined): string {
    const shown = new Set(this.#texts.values());
    return textOf({ parts: (message?.parts ?? []).filter((p) => !shown.has(p.text ?? "")) });
  }

  #artifact(update: Json): void {
    this.#show((update.artifact ?? {}) as Json, update.append === true, false);
  }

  /**
   * Shows an artifact's text: the harness's `answer`, or any other agent's text artifacts (each
   * after a header line). A `progress` artifact (PROGRESS.json) is a one-line note. `whole`:
   * the artifact as a Task carries it (only the part not yet shown is printed).
   */
  #show(artifact: Json, append: boolean, whole: boolean): void {
    const id = String(artifact.artifactId ?? artifact.name ?? "");
    const text = textOf(artifact as Message);
    if (typeof artifact.name === "string") this.#names.set(id, artifact.name);
    if (id === "progress") {
      if (!whole) this.#line(dim(this.#out, "  · progress updated"));
      return;
    }
    const file = fileLine(artifact);
    if (file !== null) {
      if (this.#files.get(id) !== file) this.#line(file);
      this.#files.set(id, file);
      return;
    }
    if (this.#current !== id) {
      if (id !== "answer" && text !== "")
        this.#line(dim(this.#out, `— ${String(artifact.name ?? id)} —`));
      this.#current = id;
    }
    const shown = this.#texts.get(id) ?? "";
    if (append) {
      this.#texts.set(id, shown + text);
      this.#text(text);
    } else if (text.startsWith(shown)) {
      this.#texts.set(id, text);
      this.#text(text.slice(shown.length));
    } else {
      if (!whole) this.#line(dim(this.#out, "  (revised)"));
      this.#texts.set(id, text);
      this.#text(text);
    }
  }

  /** Shows a whole task (get, blocking send): its state, answer and question. */
  task(task: Json): void {
    this.#task(task, false);
    const status = (task.status ?? {}) as { message?: Message };
    this.end();
    const state = this.state;
    const text = textOf(status.message);
    if (state === "input-required" || state === "auth-required")
      this.#line(paint(this.#out, "33", `? ${state}: ${text}`));
    else if (state === "failed" || state === "rejected")
      this.#line(paint(this.#out, "31", `✗ ${state}${text ? `: ${text}` : ""}`));
    else if (state === "completed") {
      const note = this.#note(status.message);
      if (note) this.#line(paint(this.#out, "32", `✓ completed: ${note}`));
    } else this.#line(dim(this.#out, `… ${state}`));
  }

  /**
   * Shows on `out` what a task followed without output came to, as {@link task} shows a whole
   * task: the agent's reply, or each artifact's text, then the state if it is not completed.
   */
  summary(out: Out): void {
    if (!this.taskId) {
      if (this.reply) out.write(this.reply.endsWith("\n") ? this.reply : `${this.reply}\n`);
      return;
    }
    new TaskView(out).task({
      id: this.taskId,
      contextId: this.contextId,
      status: { state: this.state, ...(this.lastMessage ? { message: this.lastMessage } : {}) },
      artifacts: [...this.#texts].map(([artifactId, text]) => ({
        artifactId,
        ...(this.#names.has(artifactId) ? { name: this.#names.get(artifactId) } : {}),
        parts: [{ text }],
      })),
    });
    for (const line of this.#files.values()) out.write(`${line}\n`);
  }

  /** The line of the task's state as a stream shows it (`✓ completed`, `✗ failed: why`...). */
  stateLine(): void {
    const state = this.state;
    const text = textOf(this.lastMessage);
    if (state === "completed") {
      const note = this.#note(this.lastMessage);
      this.#line(paint(this.#out, "32", `✓ completed${note ? `: ${note}` : ""}`));
    } else if (state === "failed" || state === "rejected")
      this.#line(paint(this.#out, "31", `✗ ${state}${text ? `: ${text}` : ""}`));
    else if (state === "canceled") this.#line(paint(this.#out, "33", "■ canceled"));
    else if (state === "input-required" || state === "auth-required")
      this.#line(paint(this.#out, "33", `? ${state}: ${text}`));
    else this.#line(dim(this.#out, `… ${state}${text ? `: ${text}` : ""}`));
  }

  /** A line of the CLI's own (dimmed), on a fresh line. */
  note(text: string): void {
    this.#line(dim(this.#out, text));
  }

  /** Ends the output on a fresh line. */
  end(): void {
    if (this.#atLineStart) return;
    this.#out.write("\n");
    this.#atLineStart = true;
  }
}

/** The text parts of a message or artifact. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .filter((p) => typeof p.text === "string")
    .map((p) => p.text)
    .join("");
}

/**
 * The line for an artifact that carries a file (a file the agent attached): its name, size and
 * where its bytes are (inline, or the link to download with the same credentials); null for an
 * artifact of text.
 */
function fileLine(artifact: Json): string | null {
  const part = ((artifact.parts ?? []) as Part[]).find(
    (p) => p.raw !== undefined || p.url !== undefined,
  );
  if (!part) return null;
  const name = String(artifact.name ?? part.filename ?? artifact.artifactId ?? "file");
  const size = (artifact.metadata as { size?: unknown } | undefined)?.size;
  const bytes = typeof size === "number" ? ` (${size} bytes)` : "";
  return `  ⇩ attached ${name}${bytes}${part.url ? `: ${part.url}` : ""}`;
}
