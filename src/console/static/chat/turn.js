// One agent turn in the transcript: the harness events (tool calls, hooks, plans, delegations),
// the answer rendered as Markdown, the task's state (a spinner while it runs) and, when the agent
// asks, the form that answers it; a message the person sent while it worked shows among the events. Fed live by stream events or rebuilt from a task's history.
import { isAnswerEcho } from "../../../protocol/answer-echo.ts";
import { isLiveMessage } from "../../../protocol/live-message.ts";
import { stateName, TERMINAL, textOf } from "../api.js";
import { el, icon, srOnly } from "../dom.js";
import { t, term } from "../i18n/i18n.js";
import { askForm, formOf } from "./form.js";
import { renderMarkdown } from "./markdown.js";

/** Extension URI of the harness's events. */
export const HARNESS_EXT = "urn:a2a-edge-harness:ext:harness-events:v1";

const EVENT_ICONS = {
  tool_call: "arrow-right",
  tool_result: "arrow-left",
  plan: "list",
  progress: "pencil",
  verification: "alert",
  loop_warning: "alert",
  cap_reached: "alert",
  turn_limit: "alert",
  time_limit: "alert",
  output_truncated: "alert",
  output_compacted: "alert",
  checkpoint: "flag",
  rollback: "undo",
  compaction: "compress",
  approval: "help",
  subagent: "delegate",
  remote: "delegate",
};
const HOOK_KINDS = new Set([
  "verification",
  "loop_warning",
  "cap_reached",
  "turn_limit",
  "time_limit",
  "output_truncated",
  "output_compacted",
]);
const TODO_ICONS = { completed: "box-check", in_progress: "play", pending: "box" };

/** The harness event a message carries, or null. */
export function harnessEvent(message) {
  const data = (message?.parts || []).find(
    (p) => p.data && p.metadata?.extension === HARNESS_EXT && typeof p.data.kind === "string",
  )?.data;
  if (!data) return null;
  return { text: textOf(message), data };
}

/** An agent turn. `hooks`: send(parts, taskId), inspect(taskId), changed(turn). */
export class Turn {
  constructor(agent, hooks) {
    this.agent = agent;
    this.hooks = hooks;
    this.taskId = "";
    this.contextId = "";
    /** Live turns announce their changes; restored ones stay quiet. */
    this.live = false;
    this.streaming = false;
    this.state = "submitted";
    this.answer = "";
    this.events = el("ol", { class: "events", "aria-label": t("agentDid") });
    this.text = el("div", { class: "answer markdown" });
    this.status = el("p", { class: "status state-submitted busy" }, icon("spinner"), t("sending"));
    this.actions = el("div", { class: "actions" });
    this.node = el(
      "li",
      { class: "turn agent-turn" },
      el("div", { class: "who", text: agent }),
      this.events,
      this.text,
      this.status,
      this.actions,
    );
  }

  /** True while the task can still change (the Stop button applies). */
  get running() {
    return Boolean(this.taskId) && !TERMINAL.has(this.state) && this.state !== "error";
  }

  /** Shows a failure of the console's own request (the task, if any, is not changed by it). */
  fail(text) {
    this.state = "error";
    this.status.replaceChildren(icon("cross"), t("error", text));
    this.status.className = "status state-failed";
    this.hooks.changed(this);
  }

  /** Applies one live StreamResponse. */
  event(result) {
    if (result.task) {
      this.taskId = result.task.id;
      this.contextId = result.task.contextId;
      this.setState(result.task.status);
    } else if (result.statusUpdate) {
      const status = result.statusUpdate.status;
      // The answer's echo repeats the answer artifact, which this turn shows already.
      if (isAnswerEcho(status.message)) return;
      // A message the person sent while the task worked: shown among the turn's events.
      if (isLiveMessage(status.message)) return this.addLive(textOf(status.message));
      const event = harnessEvent(status.message);
      if (event) this.addEvent(event);
      else this.setState(status);
    } else if (result.artifactUpdate) {
      const { artifact, append } = result.artifactUpdate;
      if (artifact.artifactId !== "answer" && artifact.name !== "answer") return;
      this.setAnswer(append ? this.answer + textOf(artifact) : textOf(artifact));
    } else if (result.message) {
      this.setAnswer(textOf(result.message));
      this.setState({ state: "TASK_STATE_COMPLETED" });
    }
  }

  /** Adds a message the person sent to the working task (a live message) to the list. */
  addLive(text) {
    this.events.append(
      el(
        "li",
        { class: "event kind-live", "data-kind": "live" },
        icon("send"),
        el("span", { class: "kind", text: t("you") }),
        el("span", { class: "text", text }),
      ),
    );
    if (this.live) this.hooks.changed(this);
  }

  /** Adds a harness event to the list. */
  addEvent({ text, data }) {
    const kind = data.kind;
    const item = el(
      "li",
      { class: `event kind-${kind}${HOOK_KINDS.has(kind) ? " hook" : ""}`, "data-kind": kind },
      icon(Object.hasOwn(EVENT_ICONS, kind) ? EVENT_ICONS[kind] : "dot"),
      el("span", { class: "kind", text: term("kinds", kind, kind.replaceAll("_", " ")) }),
      el("span", { class: "text", text }),
      data.agent && data.agent !== this.agent
        ? el("span", { class: "muted", text: `[${data.agent}]` })
        : null,
    );
    if (kind === "plan" && Array.isArray(data.detail?.todos))
      item.append(
        el(
          "ul",
          { class: "plan" },
          ...data.detail.todos.map((todo) => {
            const status = Object.hasOwn(TODO_ICONS, todo.status) ? todo.status : "pending";
            // The agent a step is delegated to; the planning agent's own steps carry no tag.
            const owner =
              typeof todo.agent === "string" && todo.agent !== data.agent ? todo.agent : "";
            return el(
              "li",
              { class: `todo ${todo.status}` },
              icon(TODO_ICONS[status]),
              srOnly(`${term("todo", status)}: `),
              owner ? el("span", { class: "owner", text: `[${owner}] ` }) : null,
              String(todo.content ?? ""),
            );
          }),
        ),
      );
    this.events.append(item);
    this.hooks.changed(this);
  }

  /** Replaces the answer (Markdown, rendered at most once per frame while it streams). */
  setAnswer(text) {
    this.answer = text;
    if (!this.frame) this.frame = requestAnimationFrame(() => this.#render());
  }

  #render() {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    renderMarkdown(this.text, this.answer);
    this.hooks.changed(this);
  }

  /** Shows the task's state; `answered` marks a question the person already answered. */
  setState(status, { answered = false } = {}) {
    // A new state shows with the answer as it is by then.
    if (this.frame) this.#render();
    const name = stateName(status.state) || "working";
    this.state = name;
    // A completed status shows its note (a limit's); a part repeating the answer is left out.
    const parts = status.message?.parts ?? [];
    const text = textOf(
      name === "completed"
        ? { parts: parts.filter((p) => p.text !== this.answer) }
        : status.message,
    );
    // auth-required (the user's authorization, e.g. a sign-in link) is answered like a question.
    const asks = name === "input-required" || name === "auth-required";
    const label = term("states", asks && answered ? "asked" : name);
    const mark =
      name === "completed"
        ? icon("check")
        : TERMINAL.has(name)
          ? icon("cross")
          : asks
            ? icon("help")
            : icon("spinner");
    this.status.replaceChildren(mark, `${label}${text ? `: ${text}` : ""}`);
    this.status.className = `status state-${name}${this.running && !asks ? " busy" : ""}`;
    this.actions.replaceChildren(
      el(
        "button",
        { type: "button", class: "link", onclick: () => this.hooks.inspect(this.taskId) },
        t("inspectTask"),
      ),
    );
    if (TERMINAL.has(name) && this.answer)
      this.actions.append(
        el(
          "button",
          {
            type: "button",
            class: "link",
            onclick: () => navigator.clipboard?.writeText(this.answer),
          },
          t("copyAnswer"),
        ),
      );
    if (asks && !answered) {
      const form = askForm(formOf(status.message), (parts) => {
        this.setState(status, { answered: true });
        this.hooks.send(parts, this.taskId);
      });
      this.actions.append(form);
      requestAnimationFrame(() => form.querySelector("input, select, textarea")?.focus());
    }
    this.hooks.changed(this);
  }
}
