// The conversations a person can reopen: the ones this browser started (kept in localStorage per
// signed-in user, with a title from the first message and the one open per agent) merged with the
// caller's list from GET /api/sessions (empty for anonymous callers, whose conversations are known
// only to the browser that holds their ids). A conversation can be renamed (the title is this
// browser's) and the list searched by title. Deleting one erases it on the server too.
import { api } from "../api.js";
import { titleOf } from "../chat/transcript.js";
import { ago, el, icon } from "../dom.js";
import { language, t } from "../i18n/i18n.js";

const MAX_KEPT = 200;
const ID = /^[\w.:-]{1,128}$/;

function key(user) {
  return `a2a-console:conversations:${user || "anonymous"}`;
}

/** The stored record, validated (anything malformed is dropped, not trusted). */
function read(user) {
  let raw;
  try {
    raw = JSON.parse(localStorage.getItem(key(user)) || "{}");
  } catch {
    raw = {};
  }
  const items = (Array.isArray(raw.items) ? raw.items : []).filter(
    (c) =>
      c &&
      typeof c.agent === "string" &&
      typeof c.contextId === "string" &&
      ID.test(c.contextId) &&
      typeof c.updatedAt === "string",
  );
  const current = new Map(
    Object.entries(raw.current && typeof raw.current === "object" ? raw.current : {}).filter(
      ([, v]) => typeof v === "string" && ID.test(v),
    ),
  );
  return { items, current };
}

function write(user, { items, current }) {
  const kept = items.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).slice(0, MAX_KEPT);
  localStorage.setItem(
    key(user),
    JSON.stringify({ items: kept, current: Object.fromEntries(current) }),
  );
}

/** The conversation open for `agent` in this browser, or null. */
export function currentOf(user, agent) {
  return read(user).current.get(agent) ?? null;
}

/** The title this browser keeps for a conversation (its first message, or a new name), or "". */
export function keptTitle(user, contextId) {
  return read(user).items.find((c) => c.contextId === contextId)?.title ?? "";
}

/** Marks the conversation open for `agent` (null: a new one). */
export function setCurrent(user, agent, contextId) {
  const record = read(user);
  if (contextId) record.current.set(agent, contextId);
  else record.current.delete(agent);
  write(user, record);
}

/**
 * Records (or refreshes) a conversation, by default as used now; a title already kept is not
 * replaced. Titles are the first message, cut to 120 characters.
 */
export function remember(user, { agent, contextId, title, updatedAt }) {
  const record = read(user);
  const at = updatedAt || new Date().toISOString();
  const short = String(title || "").slice(0, 120);
  const existing = record.items.find((c) => c.contextId === contextId);
  if (existing) {
    if (at > existing.updatedAt) existing.updatedAt = at;
    if (short && !existing.title) existing.title = short;
  } else record.items.push({ agent, contextId, title: short, startedAt: at, updatedAt: at });
  write(user, record);
}

/**
 * Renames a conversation in this browser (its title is this browser's: the server keeps none);
 * an empty title gives the conversation its first message back as its title, when next read.
 */
export function rename(user, item, title) {
  const record = read(user);
  const now = new Date().toISOString();
  let kept = record.items.find((c) => c.contextId === item.contextId);
  if (!kept) {
    kept = {
      agent: item.agent,
      contextId: item.contextId,
      title: "",
      startedAt: item.startedAt || now,
      updatedAt: item.updatedAt || now,
    };
    record.items.push(kept);
  }
  kept.title = String(title).trim().slice(0, 120);
  write(user, record);
}

/** The conversations whose title (or id) holds `query`, ignoring case and accents. */
export function matching(items, query) {
  const fold = (text) =>
    String(text)
      .normalize("NFD")
      .replace(/\p{Diacritic}/gu, "")
      .toLowerCase();
  const wanted = fold(query.trim());
  if (!wanted) return items;
  return items.filter((c) => fold(`${c.title} ${c.contextId}`).includes(wanted));
}

/** Forgets a conversation in this browser. */
export function forget(user, contextId) {
  const record = read(user);
  record.items = record.items.filter((c) => c.contextId !== contextId);
  for (const [agent, id] of record.current) if (id === contextId) record.current.delete(agent);
  write(user, record);
}

/** The agent's conversations, newest first: this browser's merged with the server's list. */
export async function listConversations(user, agent) {
  const local = read(user).items.filter((c) => c.agent === agent);
  let server = [];
  try {
    server =
      (await api(`/api/sessions?agent=${encodeURIComponent(agent)}&limit=50`)).sessions || [];
  } catch {
    // The browser's own list is still worth showing.
  }
  const merged = new Map(local.map((c) => [c.contextId, { ...c }]));
  for (const s of server) {
    if (typeof s.contextId !== "string" || !ID.test(s.contextId)) continue;
    const mine = merged.get(s.contextId);
    merged.set(s.contextId, {
      agent,
      contextId: s.contextId,
      title: mine?.title || "",
      tasks: s.tasks,
      startedAt: s.startedAt,
      updatedAt: [s.updatedAt, mine?.updatedAt].filter(Boolean).sort().at(-1),
    });
  }
  return [...merged.values()].sort((a, b) =>
    String(b.updatedAt).localeCompare(String(a.updatedAt)),
  );
}

/** Fetches the first message of a few conversations listed without a title, and keeps it. */
export async function fillTitles(user, items) {
  let filled = 0;
  for (const item of items.filter((c) => !c.title).slice(0, 8)) {
    try {
      const detail = await api(`/api/sessions/${encodeURIComponent(item.contextId)}`);
      const first = (detail.messages || []).find((m) => m.role === "ROLE_USER");
      if (!first) continue;
      item.title = titleOf(first.parts).slice(0, 120);
      remember(user, item);
      filled++;
    } catch {
      // Left untitled; tried again next time the list is drawn.
    }
  }
  return filled > 0;
}

/** The title a conversation is listed with (its date when it has none). */
const titleShown = (item) =>
  item.title ||
  t("conversationOf", new Date(item.startedAt || item.updatedAt).toLocaleString(language()));

/** Turns a conversation's row into a box that renames it: Enter or leaving it keeps, Esc not. */
function renameInPlace(row, item, done) {
  const box = el("input", {
    type: "text",
    class: "rename",
    value: item.title,
    maxlength: 120,
    "aria-label": t("renameConversationNamed", titleShown(item)),
  });
  let finished = false;
  const finish = (keep) => {
    if (finished) return;
    finished = true;
    done(keep ? box.value : null);
  };
  box.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      finish(true);
    } else if (e.key === "Escape") {
      e.preventDefault();
      finish(false);
    }
  });
  box.addEventListener("blur", () => finish(true));
  row.replaceChildren(box);
  box.focus();
  box.select();
}

/** One conversation's row: open it, rename it, delete it. */
function row(item, activeId, actions) {
  const title = titleShown(item);
  const meta = [item.tasks ? t("tasks", item.tasks) : "", ago(item.updatedAt)]
    .filter(Boolean)
    .join(" · ");
  const li = el("li", { class: "conversation", "data-context-id": item.contextId });
  li.append(
    el(
      "button",
      {
        type: "button",
        class: "open",
        "aria-current": item.contextId === activeId ? "true" : null,
        onclick: () => actions.open(item.contextId),
      },
      el("span", { class: "title", text: title }),
      el("span", { class: "muted meta", text: meta }),
    ),
    el(
      "button",
      {
        type: "button",
        class: "icon-button rename-button",
        title: t("renameConversation"),
        "aria-label": t("renameConversationNamed", title),
        onclick: () => renameInPlace(li, item, (text) => actions.rename(item, text)),
      },
      icon("pencil"),
    ),
    el(
      "button",
      {
        type: "button",
        class: "icon-button",
        title: t("deleteConversation"),
        "aria-label": t("deleteConversationNamed", title),
        onclick: () => actions.remove(item),
      },
      icon("trash"),
    ),
  );
  return li;
}

/**
 * Renders the list, those matching `query` only; `open(contextId)`, `rename(item, title)` (null:
 * kept as it was) and `remove(item)` are a row's actions.
 */
export function renderConversations(list, items, activeId, actions, query = "") {
  if (items.length === 0) {
    list.replaceChildren(el("li", { class: "muted empty", text: t("noConversations") }));
    return;
  }
  const shown = matching(items, query);
  if (shown.length === 0) {
    list.replaceChildren(el("li", { class: "muted empty", text: t("noMatch", query.trim()) }));
    return;
  }
  list.replaceChildren(...shown.map((item) => row(item, activeId, actions)));
}
