// The task inspector: the tasks of the open conversation (ListTasks with its contextId) or any
// task by id, with state, context, model, usage, artifacts, history, and the event log with each
// event's time since the task started and its raw JSON (GET /api/tasks/<id>/events), and the
// task tree's waterfall (waterfall.js, from GET /api/tasks/<id>/trace), and what the model saw
// (prompt.js, from GET /api/tasks/<id>/prompt).
import { api, rpc, stateName, textOf } from "../api.js";
import { $, el, tableHead } from "../dom.js";
import { language, t, term } from "../i18n/i18n.js";
import { promptSection } from "./prompt.js";
import { waterfall } from "./waterfall.js";

/** The harness's cost extension in a task's metadata (src/protocol/extensions.ts). */
const COST_EXTENSION = "urn:a2a-edge-harness:ext:cost:v1";

/** Lists the conversation's tasks (none for a new conversation). */
export async function loadTasks(agent, contextId, open) {
  const list = $("#tasks");
  if (!contextId) {
    list.replaceChildren(el("li", { class: "muted", text: t("noTasks") }));
    return;
  }
  try {
    const page = await rpc(agent, "ListTasks", { contextId, pageSize: 20 });
    list.replaceChildren(
      ...page.tasks.map((task) =>
        el(
          "li",
          {},
          el(
            "button",
            { type: "button", class: "link", onclick: () => open(task.id) },
            `${stateOf(task.status)} · ${task.id.slice(0, 8)} · ${new Date(task.status.timestamp).toLocaleTimeString(language())}`,
          ),
        ),
      ),
    );
  } catch {
    list.replaceChildren();
  }
}

/** A status's state in the console's language. */
const stateOf = (status) => term("states", stateName(status.state));

function summarize(event) {
  if (event.task) return `${t("task")} ${stateOf(event.task.status)}`;
  if (event.statusUpdate) {
    const status = event.statusUpdate.status;
    const text = textOf(status.message);
    return `${stateOf(status)}${text ? `: ${text}` : ""}`.slice(0, 200);
  }
  if (event.artifactUpdate)
    return `${event.artifactUpdate.artifact.name || t("artifact")}: ${textOf(event.artifactUpdate.artifact).slice(0, 120)}`;
  return JSON.stringify(event).slice(0, 200);
}

const fact = (term, value, cls) => [
  el("dt", { text: term }),
  el("dd", { class: cls, text: value }),
];

/** Shows one task in the inspector. */
export async function inspect(agent, taskId) {
  if (!taskId) return;
  const panel = $("#inspector-body");
  panel.replaceChildren(el("p", { text: t("loading") }));
  try {
    const [task, log, trace, prompt] = await Promise.all([
      rpc(agent, "GetTask", { id: taskId }),
      api(`/api/tasks/${encodeURIComponent(taskId)}/events`),
      api(`/api/tasks/${encodeURIComponent(taskId)}/trace`).catch(() => ({ resourceSpans: [] })),
      api(`/api/tasks/${encodeURIComponent(taskId)}/prompt`).catch(() => ({ requests: [] })),
    ]);
    const usage = task.metadata?.usage || {};
    const model = task.metadata?.model || {};
    const cost = task.metadata?.[COST_EXTENSION];
    const simulated = cost?.simulated === true;
    panel.replaceChildren(
      el(
        "dl",
        { class: "facts" },
        ...fact(t("factTask"), task.id),
        ...fact(t("factState"), stateOf(task.status), `state-${stateName(task.status.state)}`),
        ...fact(t("factContext"), task.contextId),
        ...fact(t("factModel"), `${model.name || "?"} (${model.source || "?"})`),
        ...fact(
          t("factUsage"),
          t("usage", {
            in: usage.inputTokens ?? 0,
            out: usage.outputTokens ?? 0,
            cache: usage.cacheReadTokens ?? 0,
            calls: usage.modelCalls ?? 0,
          }),
        ),
        ...(typeof cost?.estimatedCostUsd === "number"
          ? fact(
              t("factCost"),
              `~$${cost.estimatedCostUsd.toFixed(4)}${simulated ? ` ${t("simulated")}` : ""}`,
            )
          : []),
      ),
      el("h3", { text: t("artifacts") }),
      ...(task.artifacts || []).map((a) =>
        el(
          "details",
          { open: a.artifactId === "answer" },
          el("summary", { text: a.name || a.artifactId }),
          el("pre", { text: textOf(a) }),
        ),
      ),
      el("h3", { text: t("history") }),
      el(
        "ol",
        { class: "history" },
        ...(task.history || []).map((m) =>
          el(
            "li",
            {},
            el("strong", { text: m.role === "ROLE_USER" ? t("fromUser") : t("fromAgent") }),
            textOf(m) || JSON.stringify(m.parts?.[1]?.data ?? m.parts?.[0]?.data ?? ""),
          ),
        ),
      ),
      el("h3", { text: t("eventLog", log.events.length) }),
      el(
        "table",
        { class: "log" },
        tableHead(t("logHeads")),
        el(
          "tbody",
          {},
          ...log.events.map((e) =>
            el(
              "tr",
              {},
              el("td", { text: String(e.seq) }),
              el("td", { text: String(e.sinceStartMs) }),
              el("td", { text: e.kind }),
              el(
                "td",
                {},
                el(
                  "details",
                  { class: "raw" },
                  el("summary", { text: summarize(e.event) }),
                  el("pre", { text: JSON.stringify(e.event, null, 2) }),
                ),
              ),
            ),
          ),
        ),
      ),
      el("h3", { text: t("waterfall") }),
      waterfall(trace, { simulated }),
      el("h3", { class: "prompt-title", text: t("promptTitle", prompt.requests.length) }),
      ...promptSection(prompt),
    );
  } catch (error) {
    panel.replaceChildren(el("p", { class: "state-failed", text: error.message }));
  }
}
