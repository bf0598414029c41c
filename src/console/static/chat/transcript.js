// A conversation rebuilt from the server: the order of its tasks from GET /api/sessions/<id>,
// their full histories (user messages, harness events, questions, answers) and answer artifacts
// from ListTasks with that contextId, turned into the same turns the live chat shows.
import { isLiveMessage } from "../../../protocol/live-message.ts";
import { INTERRUPTED_STATES } from "../../../protocol/task-states.ts";
import { api, rpc, textOf } from "../api.js";
import { el, icon } from "../dom.js";
import { t } from "../i18n/i18n.js";
import { formOf } from "./form.js";
import { harnessEvent, Turn } from "./turn.js";

/** The most tasks of one conversation that are shown (ListTasks' largest page). */
const MAX_TASKS = 100;

/**
 * The conversation's top-level tasks, oldest first, each with its history and artifacts, and the
 * first thing the person said; null when the server does not know the conversation.
 */
export async function loadConversation(agent, contextId) {
  // The session index can trail a task by a moment: a 404 is "gone" only if ListTasks agrees.
  const detail = await api(`/api/sessions/${encodeURIComponent(contextId)}`).catch((error) => {
    if (error.status === 404) return { tasks: [], messages: [] };
    throw error;
  });
  const page = await rpc(agent, "ListTasks", {
    contextId,
    historyLength: 100000,
    includeArtifacts: true,
    pageSize: MAX_TASKS,
  });
  const full = new Map(
    page.tasks.filter((t) => !t.metadata?.parentTaskId).map((task) => [task.id, task]),
  );
  const ordered = (detail.tasks || []).map((t) => full.get(t.id)).filter(Boolean);
  const known = new Set(ordered.map((t) => t.id));
  // Tasks the session index has not caught up with yet come last, by time.
  const newer = [...full.values()]
    .filter((t) => !known.has(t.id))
    .sort((a, b) => String(a.status.timestamp).localeCompare(String(b.status.timestamp)));
  const tasks = [...ordered, ...newer];
  if (tasks.length === 0) return null;
  const first = [...(detail.messages || []), ...(tasks[0].history || [])].find(
    (m) => m.role === "ROLE_USER",
  );
  return { tasks, title: first ? titleOf(first.parts) : "" };
}

/** What a person sent, as shown: text parts, and data parts as JSON. */
export function shownText(parts) {
  return (parts || [])
    .map((p) =>
      typeof p.text === "string" ? p.text : p.data !== undefined ? JSON.stringify(p.data) : "",
    )
    .filter(Boolean)
    .join(" ");
}

/** The names of the files a message carries (its file parts: `raw` or `url`). */
export const fileNames = (parts) =>
  (parts || [])
    .filter((p) => p.raw !== undefined || p.url !== undefined)
    .map((p) => String(p.filename || p.url || t("file")));

/** A message's title (a conversation's): what it said, else the files it carried. */
export const titleOf = (parts) => shownText(parts) || fileNames(parts).join(", ");

/** A bubble with what the person sent, and the files attached to it. */
export function userBubble(parts) {
  const files = fileNames(parts);
  return el(
    "li",
    { class: "turn user-turn" },
    el("div", { class: "who", text: t("you") }),
    el("div", { class: "said", text: shownText(parts) }),
    files.length > 0
      ? el(
          "ul",
          { class: "sent-files", "aria-label": t("attachedFiles") },
          ...files.map((name) => el("li", { class: "attachment" }, icon("paperclip"), name)),
        )
      : null,
  );
}

/**
 * Splits a history at each user message: [{ user, replies }] (replies: agent messages, and the
 * live messages the person sent while the task worked, which do not start a segment).
 */
function segments(history) {
  const out = [];
  for (const message of history || []) {
    if (message.role === "ROLE_USER" && !isLiveMessage(message))
      out.push({ user: message, replies: [] });
    else {
      if (out.length === 0) out.push({ user: null, replies: [] });
      out.at(-1).replies.push(message);
    }
  }
  return out.length > 0 ? out : [{ user: null, replies: [] }];
}

/**
 * The transcript nodes of one task and its last turn. Within a segment, agent messages are harness
 * events or answer text, except the question that ended it: the last plain message of a segment
 * the person answered (or of the last one while the task waits for input).
 */
export function renderTask(task, agent, hooks) {
  const nodes = [];
  const parts = segments(task.history);
  const waiting = INTERRUPTED_STATES.has(task.status.state);
  // The final status message (a refusal's explanation, say) shows on the status line, not twice.
  const statusId = task.status.message?.messageId;
  let turn;
  parts.forEach(({ user, replies }, i) => {
    if (user) nodes.push(userBubble(user.parts));
    turn = new Turn(agent, hooks);
    turn.taskId = task.id;
    turn.contextId = task.contextId;
    nodes.push(turn.node);
    const last = i === parts.length - 1;
    const plain = replies.filter((m) => !harnessEvent(m) && !isLiveMessage(m));
    const question = !last || waiting ? plain.at(-1) : undefined;
    const answer = [];
    for (const message of replies) {
      const event = harnessEvent(message);
      if (isLiveMessage(message)) turn.addLive(textOf(message));
      else if (event) turn.addEvent(event);
      else if (message !== question && !formOf(message) && message.messageId !== statusId)
        answer.push(textOf(message));
    }
    const artifact = (task.artifacts || []).find((a) => a.artifactId === "answer");
    if (answer.length === 0 && last && artifact) answer.push(textOf(artifact));
    if (answer.length > 0) turn.setAnswer(answer.join("\n\n"));
    if (!last)
      turn.setState({ state: "TASK_STATE_INPUT_REQUIRED", message: question }, { answered: true });
  });
  turn.setState(task.status);
  return { nodes, last: turn };
}
