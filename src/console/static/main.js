// The harness's web console (served at /console): agents, the caller's conversations to reopen
// (renamed and searched), a streaming chat that shows the harness's events, answers input-required
// forms, takes attached files and stops a running task, and a side panel: a task inspector, the
// workspace's files and state, and the raw JSON of every request; starter prompts on an empty
// conversation, "@agent" to write to another agent, voice input, in English or Portuguese
// (Brazil). Plain browser JavaScript modules bundled by esbuild; it speaks A2A v1.0 JSON-RPC and
// the REST API to the same endpoints as any client.
import { api, auth } from "./api.js";
import { hasAttachments, messageParts, wireAttachments } from "./chat/attachments.js";
import { wireComposer } from "./chat/composer.js";
import { starterChips } from "./chat/starters.js";
import { View } from "./chat/view.js";
import { $, icon } from "./dom.js";
import { watchAgents } from "./events.js";
import { language, setLanguage, t, term, translatePage } from "./i18n/i18n.js";
import {
  currentOf,
  fillTitles,
  forget,
  keptTitle,
  listConversations,
  remember,
  rename,
  renderConversations,
  setCurrent,
} from "./side/conversations.js";
import { refreshFiles, showFiles, wireFiles } from "./side/files.js";
import { inspect, loadTasks } from "./side/inspector.js";
import { drawRaw, wireRaw } from "./side/raw.js";
import { agentIcon, loadCard, loadRoster, markSelected, showNames } from "./side/roster.js";
import { whoAmI as askWho } from "./side/signin.js";
import { refreshState, showState } from "./side/state.js";
import { openPane, showPane, wireTabs } from "./side/tabs.js";
import { workspaceScope } from "./workspace.js";

const app = { user: null, view: null, listRound: 0, conversations: [] };
const transcript = $("#transcript");
let stick = true;

function announce(text) {
  $("#announcer").textContent = text;
}

// ---- who is calling --------------------------------------------------------------------------

/** Who is calling (signin.js): true when the page may load the roster. */
async function whoAmI() {
  app.user = await askWho();
  return app.user !== null;
}

// ---- agents ----------------------------------------------------------------------------------

async function showRoster() {
  selectAgent(await loadRoster(selectAgent));
  watchAgents(followRoster);
}

/** Redraws the roster another change brought; an agent that went away leaves its view. */
async function followRoster(roster) {
  const fallback = await loadRoster(selectAgent, roster);
  const shown = app.view?.agent;
  const now = roster.agents.find((a) => a.name === shown);
  if (!shown) return;
  if (!now) {
    announce(
      `${shown}: ${roster.unavailable?.find((a) => a.name === shown)?.error || t("agentGone")}`,
    );
    return selectAgent(fallback);
  }
  markSelected(shown);
  if (roster.agent === shown) loadCard(shown, (name) => app.view?.agent === name);
}

/** Opens `name` on `contextId` (by default the conversation last open for it; null: a new one). */
function selectAgent(name, contextId = currentOf(app.user, name)) {
  if (!name) return;
  markSelected(name);
  openConversation(name, contextId);
  loadCard(name, (shown) => app.view?.agent === shown);
}

/**
 * Sends `text` and the attached files in the open conversation (text alone at once); while a task
 * works there, to that task as a live message (View.steer).
 */
async function sendMessage(text) {
  const view = app.view;
  const parts = hasAttachments() ? await messageParts(text) : text ? [{ text }] : [];
  if (parts.length === 0) return;
  if (view.working) view.steer(parts);
  else view.send(parts);
}

/** A message addressed to `agent` ("@agent ..."): a new conversation with it, unless it is open. */
function address(agent, text) {
  if (agent !== app.view.agent) {
    setCurrent(app.user, agent, null);
    selectAgent(agent, null);
  }
  sendMessage(text);
}

/** Redraws everything in the language just chosen, the open conversation included. */
async function relabel() {
  const open = app.view;
  if (!(await whoAmI())) return showNames();
  const next = await loadRoster(selectAgent);
  if (open) selectAgent(open.agent, open.contextId);
  else selectAgent(next);
}

// ---- conversations ---------------------------------------------------------------------------

const viewHooks = {
  started(view, turn, first) {
    remember(app.user, {
      agent: view.agent,
      contextId: turn.contextId,
      title: view.title || first,
    });
    view.title ||= first;
    // The agent's latest conversation, unless the person has since opened another of its own.
    if (view === app.view || app.view?.agent !== view.agent)
      setCurrent(app.user, view.agent, turn.contextId);
    if (view !== app.view) return;
    showHeading(view);
    refreshConversations();
    showTasks(view);
    showWorkspace(view);
  },
  changed(view, turn, { sent = false } = {}) {
    if (view !== app.view) return;
    if (sent) {
      stick = true;
      view.list.querySelector(".starters")?.remove();
    }
    if (stick) transcript.scrollTop = transcript.scrollHeight;
    showActivity();
    if (turn.live && turn.state !== turn.announced) {
      turn.announced = turn.state;
      const said = turn.status.textContent;
      const words = {
        working: () => t("saidWorking", view.agent),
        completed: () => t("saidAnswered", view.agent, turn.answer.slice(0, 300)),
        "input-required": () => t("saidAsks", view.agent, said),
        "auth-required": () => t("saidAsks", view.agent, said),
        canceled: () => t("saidStopped"),
        failed: () => t("saidFailed", said),
        rejected: () => t("saidDeclined", view.agent, said),
        error: () => said,
      };
      if (Object.hasOwn(words, turn.state)) announce(words[turn.state]());
    }
  },
  ended(view) {
    if (view !== app.view) return;
    showActivity();
    showTasks(view);
    refreshConversations();
    showWorkspace(view);
  },
  gone(view) {
    forget(app.user, view.contextId);
    view.contextId = null;
    if (view === app.view) refreshConversations();
  },
  inspect: (taskId) => inspectTask(app.view.agent, taskId),
};

/** Opens the inspector's tab on a task. */
function inspectTask(agent, taskId) {
  showPane("inspector");
  inspect(agent, taskId);
}

/** The workspace the Files and State panes show: the open view's (workspace.js). */
const scopeOf = (view) =>
  workspaceScope({
    agent: view.agent,
    contextId: view.contextId,
    anonymous: app.user === "anonymous",
  });

/** Points the Files and State panes at `view`'s workspace; the one shown is read again. */
function showWorkspace(view) {
  const pane = openPane();
  showFiles(scopeOf(view), { read: pane === "files" });
  showState(scopeOf(view), { read: pane === "state" });
}

/** A pane was opened: it is drawn from what is there now. */
function paneOpened(name) {
  if (name === "files") refreshFiles();
  else if (name === "state") refreshState();
  else if (name === "raw") drawRaw();
}

function showHeading(view) {
  $("#agent-icon").replaceChildren(agentIcon(view.agent) ?? "");
  $("#agent-name").textContent = view.agent;
  const title = (view.contextId && keptTitle(app.user, view.contextId)) || view.title;
  $("#conversation-title").textContent = title || (view.contextId ? "" : t("newConversation"));
}

function showActivity() {
  const running = app.view?.running;
  $("#stop").hidden = !running;
  $("#activity").hidden = !running;
  $("#activity-text").textContent = running
    ? t("agentIs", app.view.agent, term("doing", running.state, term("doing", "working")))
    : "";
  document.title = running ? `${t("working")} ${t("title")}` : t("title");
}

function openConversation(agent, contextId) {
  app.view?.close();
  const view = new View(agent, contextId, viewHooks);
  app.view = view;
  transcript.replaceChildren(view.list);
  if (!contextId) view.list.append(starterChips(agent, (text) => sendMessage(text)) ?? "");
  stick = true;
  showHeading(view);
  showActivity();
  view.ready.then(() => {
    if (app.view === view) {
      showHeading(view);
      transcript.scrollTop = transcript.scrollHeight;
    }
  });
  refreshConversations();
  showTasks(view);
  showWorkspace(view);
  document.body.classList.remove("nav-open");
  $("#menu").setAttribute("aria-expanded", "false");
  $("#prompt").focus();
}

function showTasks(view) {
  loadTasks(view.agent, view.contextId, (id) => inspectTask(view.agent, id));
}

function newConversation() {
  setCurrent(app.user, app.view.agent, null);
  openConversation(app.view.agent, null);
}

/** Draws the conversations last listed, those matching the search box. */
function drawConversations() {
  const view = app.view;
  if (!view) return;
  renderConversations(
    $("#conversations"),
    app.conversations,
    view.contextId,
    {
      open: (contextId) => {
        setCurrent(app.user, view.agent, contextId);
        openConversation(view.agent, contextId);
      },
      rename: renameConversation,
      remove: removeConversation,
    },
    $("#conversation-search").value,
  );
}

async function refreshConversations() {
  const view = app.view;
  const round = ++app.listRound;
  const items = await listConversations(app.user, view.agent);
  const draw = () => {
    if (round !== app.listRound) return;
    app.conversations = items;
    drawConversations();
  };
  draw();
  if (await fillTitles(app.user, items)) draw();
}

/** Renames a conversation (null: left as it was) and shows its new title. */
function renameConversation(item, title) {
  if (title === null || title.trim() === (item.title ?? "")) return drawConversations();
  rename(app.user, item, title);
  item.title = title.trim().slice(0, 120);
  if (app.view?.contextId === item.contextId) {
    app.view.title = item.title;
    showHeading(app.view);
  }
  announce(t("renamed", item.title));
  refreshConversations();
}

async function removeConversation(item) {
  const title = item.title || t("thisConversation");
  if (!window.confirm(t("confirmDelete", title))) return;
  try {
    await api(`/api/sessions/${encodeURIComponent(item.contextId)}`, { method: "DELETE" });
  } catch (error) {
    if (error.status !== 404) return announce(t("couldNotDelete", error.message));
  }
  forget(app.user, item.contextId);
  announce(t("deleted", title));
  if (app.view.contextId === item.contextId) newConversation();
  else refreshConversations();
}

// ---- wiring ----------------------------------------------------------------------------------

function wire() {
  $("#send").prepend(icon("send"));
  $("#stop").prepend(icon("stop"));
  $("#new-chat").prepend(icon("plus"));
  $("#menu").prepend(icon("menu"));
  $("#activity").prepend(icon("spinner"));
  transcript.addEventListener("scroll", () => {
    stick = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 60;
  });
  wireComposer({
    ready: () => Boolean(app.view),
    send: sendMessage,
    address,
    running: () => Boolean(app.view?.running),
    stop: () => app.view.stop(),
    announce,
  });
  $("#lang").value = language();
  $("#lang").addEventListener("change", () => {
    setLanguage($("#lang").value);
    relabel();
  });
  $("#stop").addEventListener("click", () => app.view?.stop());
  $("#new-chat").addEventListener("click", newConversation);
  $("#menu").addEventListener("click", () => {
    const open = document.body.classList.toggle("nav-open");
    $("#menu").setAttribute("aria-expanded", String(open));
  });
  $("#signin").addEventListener("submit", async (e) => {
    e.preventDefault();
    auth.token = $("#token").value.trim();
    $("#token").value = "";
    if (await whoAmI()) await showRoster();
  });
  $("#signout").addEventListener("click", async () => {
    auth.token = "";
    app.view?.close();
    app.view = null;
    transcript.replaceChildren();
    if (await whoAmI()) await showRoster();
  });
  $("#inspect-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (app.view) inspect(app.view.agent, $("#inspect-id").value.trim());
  });
  $("#conversation-search").addEventListener("input", drawConversations);
  wireAttachments($("main.chat"), announce);
  wireFiles(announce);
  wireRaw();
  wireTabs(paneOpened);
}

async function boot() {
  translatePage();
  document.title = t("title");
  wire();
  if (await whoAmI()) return showRoster();
  await showNames();
}

boot();
