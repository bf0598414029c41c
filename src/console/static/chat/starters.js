// An empty conversation's opening: the agent's starter prompts (the `starters` of its
// IDENTITY.md, from `/agents`) as chips; choosing one sends it as the first message.
import { el } from "../dom.js";
import { t } from "../i18n/i18n.js";
import { agentInfo } from "../side/roster.js";

/** The starters of `agent` as a transcript item, or null when it has none. */
export function starterChips(agent, pick) {
  const { starters } = agentInfo(agent);
  if (starters.length === 0) return null;
  const heading = el("p", { class: "muted", id: "starters-title", text: t("starters") });
  return el(
    "li",
    { class: "starters" },
    heading,
    el(
      "div",
      { class: "chips", role: "group", "aria-labelledby": "starters-title" },
      ...starters.map((text) =>
        el("button", { type: "button", class: "chip", onclick: () => pick(text) }, text),
      ),
    ),
  );
}
