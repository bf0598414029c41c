// The harness's web console (served at /console): agents, the caller's conversations to reopen,
// a streaming chat that shows the harness's events, answers input-required forms and stops a
// running task, and a task inspector. Plain browser JavaScript modules bundled by esbuild; it
// speaks A2A v1.0 JSON-RPC and the REST API to the same endpoints as any client.
import { api, auth } from "./api.js";
import {
  currentOf,
  fillTitles,
  forget,
  listConversations,
  remember,
  renderConversations,
  setCurrent,
} from "./conversations.js";
import { $, icon } from "./dom.js";
import { watchAgents } from "./events.js";
import { inspect, loadTasks } from "./inspector.js";
import { loadCard, loadRoster, markSelected, showNames } from "./roster.js";
import { View } from "./view.js";

const TITLE = "A2A edge harness console";
const app = { user: null, view: null, listRound: 0 };
const transcript = $("#transcript");
let stick = true;

function announce(text) {
  $("#announcer").textContent = text;
}

// ---- who is calling --------------------------------------------------------------------------

async function whoAmI() {
  try {
    app.user = (await api("/api/me")).user;
    $("#who").textContent =
      app.user === "anonymous" ? "open (no sign-in needed)" : `signed in as ${app.user}`;
    $("#signin").hidden = true;
    $("#signout").hidden = !auth.token;
    return true;
  } catch (error) {
    app.user = null;
    $("#who").textContent = error.status === 401 ? "sign in with a token" : error.message;
    $("#signin").hidden = false;
    $("#signout").hidden = true;
    return false;
  }
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
    announce(`${shown}: ${roster.unavailable?.find((a) => a.name === shown)?.error || "gone"}`);
    return selectAgent(fallback);
  }
  markSelected(shown);
  if (roster.agent === shown) loadCard(shown, (name) => app.view?.agent === name);
}

function selectAgent(name) {
  if (!name) return;
  markSelected(name);
  openConversation(name, currentOf(app.user, name));
  loadCard(name, (shown) => app.view?.agent === shown);
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
  },
  changed(view, turn, { sent = false } = {}) {
    if (view !== app.view) return;
    if (sent) stick = true;
    if (stick) transcript.scrollTop = transcript.scrollHeight;
    showActivity();
    if (turn.live && turn.state !== turn.announced) {
      turn.announced = turn.state;
      const said = turn.status.textContent;
      const words = {
        working: `${view.agent} is working`,
        completed: `${view.agent} answered: ${turn.answer.slice(0, 300)}`,
        "input-required": `${view.agent} asks: ${said}`,
        canceled: "The task was stopped.",
        failed: `The task failed: ${said}`,
        rejected: `${view.agent} declined the request. ${said}`,
        error: said,
      };
      if (words[turn.state]) announce(words[turn.state]);
    }
  },
  ended(view) {
    if (view !== app.view) return;
    showActivity();
    showTasks(view);
    refreshConversations();
  },
  gone(view) {
    forget(app.user, view.contextId);
    view.contextId = null;
    if (view === app.view) refreshConversations();
  },
  inspect: (taskId) => inspect(app.view.agent, taskId),
};

function showHeading(view) {
  $("#agent-name").textContent = view.agent;
  $("#conversation-title").textContent = view.title || (view.contextId ? "" : "New conversation");
}

const DOING = {
  submitted: "starting",
  "input-required": "waiting for your answer",
  "auth-required": "waiting for authorization",
};

function showActivity() {
  const running = app.view?.running;
  $("#stop").hidden = !running;
  $("#activity").hidden = !running;
  $("#activity-text").textContent = running
    ? `${app.view.agent} is ${DOING[running.state] || "working"}…`
    : "";
  document.title = running ? `(working) ${TITLE}` : TITLE;
}

function openConversation(agent, contextId) {
  app.view?.close();
  const view = new View(agent, contextId, viewHooks);
  app.view = view;
  transcript.replaceChildren(view.list);
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
  document.body.classList.remove("nav-open");
  $("#menu").setAttribute("aria-expanded", "false");
  $("#prompt").focus();
}

function showTasks(view) {
  loadTasks(view.agent, view.contextId, (id) => inspect(view.agent, id));
}

function newConversation() {
  setCurrent(app.user, app.view.agent, null);
  openConversation(app.view.agent, null);
}

async function refreshConversations() {
  const view = app.view;
  const round = ++app.listRound;
  const items = await listConversations(app.user, view.agent);
  const draw = () => {
    if (round !== app.listRound) return;
    renderConversations($("#conversations"), items, view.contextId, {
      open: (contextId) => {
        setCurrent(app.user, view.agent, contextId);
        openConversation(view.agent, contextId);
      },
      remove: removeConversation,
    });
  };
  draw();
  if (await fillTitles(app.user, items)) draw();
}

async function removeConversation(item) {
  const title = item.title || "this conversation";
  if (!window.confirm(`Delete “${title}”? Its tasks are erased on the server too.`)) return;
  try {
    await api(`/api/sessions/${encodeURIComponent(item.contextId)}`, { method: "DELETE" });
  } catch (error) {
    if (error.status !== 404) return announce(`Could not delete it: ${error.message}`);
  }
  forget(app.user, item.contextId);
  announce(`Deleted “${title}”.`);
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
  $("#composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("#prompt").value.trim();
    if (!text || !app.view) return;
    $("#prompt").value = "";
    app.view.send([{ text }]);
  });
  $("#prompt").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("#composer").requestSubmit();
    } else if (e.key === "Escape" && app.view?.running) {
      e.preventDefault();
      app.view.stop();
    }
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
}

async function boot() {
  wire();
  if (await whoAmI()) return showRoster();
  await showNames();
}

boot();
