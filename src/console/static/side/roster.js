// The console's agent roster and the chosen agent's card: the list of agents as buttons (the
// chosen one pressed, each with its icon), the agent chosen last in this browser, what `/agents`
// says of each (icon, starter prompts), and the card's description and skills. Knows nothing of
// conversations: the caller says what choosing an agent does.
import { api } from "../api.js";
import { $, el } from "../dom.js";
import { t } from "../i18n/i18n.js";

const LAST_AGENT = "a2a-console:agent";
/** The agents of the last roster, by name: { name, description, icon, starters }. */
const roster = new Map();

/** What the roster says of `name` (an unknown agent: no icon, no starters). */
export function agentInfo(name) {
  return roster.get(name) ?? { name, description: "", icon: "", starters: [] };
}

/** The roster's agent names, in its order. */
export const agentNames = () => [...roster.keys()];

/**
 * The agent's icon: an https image (its origin is in the page's CSP; decorative, the name is
 * beside it; gone if it fails to load) or the emoji as text; null when it has none.
 */
export function agentIcon(name) {
  const mark = agentInfo(name).icon;
  if (typeof mark !== "string" || !mark) return null;
  if (/^https:\/\//.test(mark))
    return el("img", {
      class: "agent-icon",
      src: mark,
      alt: "",
      width: 20,
      height: 20,
      referrerpolicy: "no-referrer",
      onerror: (e) => e.target.remove(),
    });
  return el("span", { class: "agent-icon", "aria-hidden": "true", text: mark });
}

/**
 * Draws the roster of `/agents` (or `list`, a roster already read); an agent whose file is broken
 * is listed with its error. Resolves with the agent to open (last chosen, else default).
 */
export async function loadRoster(onSelect, list = null) {
  list ??= await api("/agents");
  roster.clear();
  for (const agent of list.agents)
    roster.set(agent.name, {
      name: agent.name,
      description: String(agent.description ?? ""),
      icon: typeof agent.icon === "string" ? agent.icon : "",
      starters: Array.isArray(agent.starters)
        ? agent.starters.filter((s) => typeof s === "string")
        : [],
    });
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
          el(
            "span",
            { class: "agent-name" },
            agentIcon(agent.name),
            el("strong", { text: agent.name }),
          ),
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
  about.replaceChildren(el("p", { class: "muted", text: t("loadingCard") }));
  let card;
  try {
    card = await api(`/agents/${encodeURIComponent(name)}/.well-known/agent-card.json`);
  } catch (error) {
    card = { description: t("cardFailed", error.message) };
  }
  if (!stillShowing(name)) return;
  about.replaceChildren(
    el("p", { text: card.description || "" }),
    el(
      "ul",
      { class: "skills", "aria-label": t("skills") },
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
