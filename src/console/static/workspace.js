// Whose workspace the side panels (Files, State) show, and its URLs: the open agent's workspace of
// the person using the console (a signed-in user has one per agent), or, for an anonymous caller,
// the open conversation's (an anonymous workspace belongs to one conversation, named with
// `?contextId=`: none before the conversation's first message). The routes are the files API
// (`/api/workspaces/<agent>/files[/<path>]`) and the state route (`.../state`). Also how such a
// pane is read and drawn.
import { el } from "./dom.js";
import { t } from "./i18n/i18n.js";

/**
 * The workspace to show: `{ agent, query }`, or `{ agent, none: true }` for an anonymous caller
 * whose conversation has not started.
 */
export function workspaceScope({ agent, contextId, anonymous }) {
  if (!anonymous) return { agent, query: "" };
  if (!contextId) return { agent, none: true };
  return { agent, query: `?contextId=${encodeURIComponent(contextId)}` };
}

/** Two scopes name the same workspace. */
export const sameScope = (a, b) =>
  Boolean(a && b) && a.agent === b.agent && a.query === b.query && a.none === b.none;

const base = (scope) => `/api/workspaces/${encodeURIComponent(scope.agent)}`;

/** The files API URL of `path` in the workspace (the listing without one); each segment encoded. */
export function fileUrl(scope, path = "") {
  const file = path ? `/${path.split("/").map(encodeURIComponent).join("/")}` : "";
  return `${base(scope)}/files${file}${scope.query}`;
}

/** The state route's URL of the workspace. */
export const stateUrl = (scope) => `${base(scope)}/state${scope.query}`;

/**
 * Reads what a workspace pane shows and draws it into `root`: `pane` holds the scope shown and a
 * counter (a read a newer one overtook is dropped); `read(scope)` fetches, `draw(value)` draws;
 * a workspace not yet there is said, and a failure with `failed(message)`.
 */
export async function readPane(root, pane, read, draw, failed) {
  const scope = pane.scope;
  const round = ++pane.round;
  if (!scope) return;
  if (scope.none) {
    root.replaceChildren(el("p", { class: "muted note", text: t("noWorkspaceYet") }));
    return;
  }
  try {
    const value = await read(scope);
    if (round === pane.round) draw(value);
  } catch (error) {
    if (round === pane.round)
      root.replaceChildren(el("p", { class: "state-failed", text: failed(error.message) }));
  }
}
