// The side panel's tabs (the task inspector, the workspace's files and state, the raw JSON of the
// console's requests): one pane shown at a time, the ARIA tabs pattern (arrow keys, Home and End
// move between tabs; only the chosen tab is in the tab order). Knows no pane's content: whoever
// wires it hears which pane was opened.
import { $ } from "../dom.js";

let onOpen = () => {};

/** The tab buttons, in order. */
const tabs = () => [...document.querySelectorAll("#side-tabs [role=tab]")];

/** The name of the open pane ("inspector", "files", "state" or "raw"). */
export function openPane() {
  const tab = tabs().find((b) => b.getAttribute("aria-selected") === "true");
  return tab?.id.replace(/^tab-/, "") ?? "inspector";
}

/** Shows the pane `name`; `focus` moves the focus to its tab. */
export function showPane(name, { focus = false } = {}) {
  for (const tab of tabs()) {
    const chosen = tab.id === `tab-${name}`;
    tab.setAttribute("aria-selected", String(chosen));
    tab.tabIndex = chosen ? 0 : -1;
    const pane = $(`#${tab.getAttribute("aria-controls")}`);
    if (pane) pane.hidden = !chosen;
    if (chosen && focus) tab.focus();
  }
  onOpen(name);
}

/** Wires the tabs; `opened(name)` hears each pane shown. */
export function wireTabs(opened) {
  onOpen = opened;
  const list = $("#side-tabs");
  list.addEventListener("click", (e) => {
    const tab = e.target.closest("[role=tab]");
    if (tab) showPane(tab.id.replace(/^tab-/, ""));
  });
  list.addEventListener("keydown", (e) => {
    const all = tabs();
    const at = all.indexOf(document.activeElement);
    if (at < 0) return;
    const to = {
      ArrowRight: (at + 1) % all.length,
      ArrowLeft: (at - 1 + all.length) % all.length,
      Home: 0,
      End: all.length - 1,
    }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    showPane(all[to].id.replace(/^tab-/, ""), { focus: true });
  });
}
