// The console's agent roster and the chosen agent's card: the list of agents as buttons (the
// chosen one pressed), the agent chosen last in this browser, and the card's description and
// skills. Knows nothing of conversations: the caller says what choosing an agent does.
import { api } from "./api.js";
import { $, el } from "./dom.js";

const LAST_AGENT = "a2a-console:agent";

/**
 * Draws the roster of `/agents` (or `list`, a roster already read); an agent whose file is broken
 * is listed with its error. Resolves with the agent to open (last chosen, else default).
 */
export async function loadRoster(onSelect, list = null) {
  list ??= await api("/agents");
  $("#roster").replaceChildren(
    ...list.agents.map((agent) =>
      el(
        "li",
        {},
        el(
          "button",
          {
            class: "agent",
            type: "button",
            "data-agent": agent.name,
            "aria-pressed": "false",
            onclick: () => onSelect(agent.name),
          },
          el("strong", { text: agent.name }),
          el("span", { class: "muted", text: agent.description }),
        ),
      ),
    ),
    ...(list.unavailable || []).map((broken) =>
      el(
        "li",
        { class: "unavailable", "data-agent": broken.name },
        el("strong", { text: broken.name }),
        el("span", { class: "muted", text: broken.error }),
      ),
    ),
  );
  const last = localStorage.getItem(LAST_AGENT);
  const known = list.agents.some((a) => a.name === last);
  return known ? last : list.defaultAgent || list.agents[0]?.name;
}

/** Presses `name`'s button and remembers it as this browser's last agent. */
export function markSelected(name) {
  localStorage.setItem(LAST_AGENT, name);
  for (const button of document.querySelectorAll("#roster button"))
    button.setAttribute("aria-pressed", String(button.dataset.agent === name));
}

/** Shows `name`'s card, unless `stillShowing(name)` is false once it arrives. */
export async function loadCard(name, stillShowing) {
  const about = $("#agent-card");
  about.replaceChildren(el("p", { class: "muted", text: "loading the card…" }));
  let card;
  try {
    card = await api(`/agents/${encodeURIComponent(name)}/.well-known/agent-card.json`);
  } catch (error) {
    card = { description: `The card could not be loaded: ${error.message}` };
  }
  if (!stillShowing(name)) return;
  about.replaceChildren(
    el("p", { text: card.description || "" }),
    el(
      "ul",
      { class: "skills", "aria-label": "skills" },
      ...(card.skills || []).map((s) => el("li", { title: s.description || "" }, s.name)),
    ),
  );
}

/** The roster as plain names, for a caller who must sign in first. */
export async function showNames() {
  const list = await api("/agents").catch(() => null);
  if (list)
    $("#roster").replaceChildren(
      ...list.agents.map((a) => el("li", { class: "muted", text: a.name })),
    );
}
