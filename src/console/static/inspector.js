// The task inspector: the tasks of the open conversation (ListTasks with its contextId) or any
// task by id, with state, context, model, usage, artifacts, history, and the event log with each
// event's time since the task started and its raw JSON (GET /api/tasks/<id>/events).
import { api, rpc, stateName, textOf } from "./api.js";
import { $, el } from "./dom.js";

/** Lists the conversation's tasks (none for a new conversation). */
export async function loadTasks(agent, contextId, open) {
  const list = $("#tasks");
  if (!contextId) {
    list.replaceChildren(el("li", { class: "muted", text: "No tasks yet." }));
    return;
  }
  try {
    const page = await rpc(agent, "ListTasks", { contextId, pageSize: 20 });
    list.replaceChildren(
      ...page.tasks.map((t) =>
        el(
          "li",
          {},
          el(
            "button",
            { type: "button", class: "link", onclick: () => open(t.id) },
            `${stateName(t.status.state)} · ${t.id.slice(0, 8)} · ${new Date(t.status.timestamp).toLocaleTimeString()}`,
          ),
        ),
      ),
    );
  } catch {
    list.replaceChildren();
  }
}

function summarize(event) {
  if (event.task) return `task ${stateName(event.task.status.state)}`;
  if (event.statusUpdate) {
    const status = event.statusUpdate.status;
    const text = textOf(status.message);
    return `${stateName(status.state)}${text ? `: ${text}` : ""}`.slice(0, 200);
  }
  if (event.artifactUpdate)
    return `${event.artifactUpdate.artifact.name || "artifact"}: ${textOf(event.artifactUpdate.artifact).slice(0, 120)}`;
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
  $("#inspector").open = true;
  panel.replaceChildren(el("p", { text: "loading…" }));
  try {
    const [task, log] = await Promise.all([
      rpc(agent, "GetTask", { id: taskId }),
      api(`/api/tasks/${encodeURIComponent(taskId)}/events`),
    ]);
    const usage = task.metadata?.usage || {};
    const model = task.metadata?.model || {};
    panel.replaceChildren(
      el(
        "dl",
        { class: "facts" },
        ...fact("task", task.id),
        ...fact("state", stateName(task.status.state), `state-${stateName(task.status.state)}`),
        ...fact("context", task.contextId),
        ...fact("model", `${model.name || "?"} (${model.source || "?"})`),
        ...fact(
          "usage",
          `${usage.inputTokens ?? 0} in · ${usage.outputTokens ?? 0} out · ${usage.cacheReadTokens ?? 0} cache read · ${usage.modelCalls ?? 0} model calls`,
        ),
      ),
      el("h3", { text: "Artifacts" }),
      ...(task.artifacts || []).map((a) =>
        el(
          "details",
          { open: a.artifactId === "answer" },
          el("summary", { text: a.name || a.artifactId }),
          el("pre", { text: textOf(a) }),
        ),
      ),
      el("h3", { text: "History" }),
      el(
        "ol",
        { class: "history" },
        ...(task.history || []).map((m) =>
          el(
            "li",
            {},
            el("strong", { text: m.role === "ROLE_USER" ? "user: " : "agent: " }),
            textOf(m) || JSON.stringify(m.parts?.[1]?.data ?? m.parts?.[0]?.data ?? ""),
          ),
        ),
      ),
      el("h3", { text: `Event log (${log.events.length})` }),
      el(
        "table",
        { class: "log" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            ...["#", "+ms", "kind", "what (open for the raw event)"].map((h) =>
              el("th", { scope: "col", text: h }),
            ),
          ),
        ),
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
    );
  } catch (error) {
    panel.replaceChildren(el("p", { class: "state-failed", text: error.message }));
  }
}
