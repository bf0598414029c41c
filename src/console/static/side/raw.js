// The Raw pane: every request the console made and its answer as JSON (exchanges.js), newest
// first, like the A2A Inspector's raw view: a line per exchange (time, method, URL, the JSON-RPC
// method, the status, a stream's event count), opened for the request and the answer (a stream's
// events in order). The JSON is written out only when an exchange is opened, and as text.
import { $, el } from "../dom.js";
import { exchanges, onExchange } from "../exchanges.js";
import { t } from "../i18n/i18n.js";

/** Characters of one JSON shown (the rest is cut, with a note). */
const JSON_MAX_CHARS = 300_000;
const opened = new Set();
let frame = 0;

const json = (value) => {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return text.length > JSON_MAX_CHARS ? `${text.slice(0, JSON_MAX_CHARS)}\n… ${t("cut")}` : text;
};

/** The line that names an exchange. */
function summaryOf(x) {
  const rpc = typeof x.request?.method === "string" ? ` ${x.request.method}` : "";
  const status = x.status === null ? "…" : String(x.status);
  const events = x.events ? ` · ${t("events", x.events.length + x.dropped)}` : "";
  return `${x.at.toLocaleTimeString()} ${x.method} ${x.url}${rpc} → ${status}${events}`;
}

/** The request and the answer of an exchange, written out. */
function detailOf(x) {
  const answer = x.events
    ? { status: x.status, events: x.events, ...(x.dropped ? { dropped: x.dropped } : {}) }
    : x.answer;
  return [
    el("h4", { text: t("rawRequest") }),
    el("pre", { class: "raw-json", text: json(x.request) }),
    el("h4", { text: t("rawAnswer") }),
    el("pre", { class: "raw-json", text: json(answer) }),
  ];
}

function item(x) {
  const details = el(
    "details",
    { class: "exchange", "data-exchange": x.id, open: opened.has(x.id) },
    el("summary", { text: summaryOf(x) }),
  );
  if (opened.has(x.id)) details.append(...detailOf(x));
  details.addEventListener("toggle", () => {
    if (details.open) {
      opened.add(x.id);
      if (details.childElementCount === 1) details.append(...detailOf(x));
    } else opened.delete(x.id);
  });
  return details;
}

/** Draws the exchanges (at most once a frame while they change). */
export function drawRaw() {
  cancelAnimationFrame(frame);
  frame = 0;
  const root = $("#raw-pane");
  if (root.hidden) return;
  const list = exchanges();
  root.replaceChildren(
    el("p", { class: "hint muted", text: t("rawHint") }),
    ...(list.length > 0 ? list.map(item) : [el("p", { class: "muted", text: t("noExchanges") })]),
  );
}

/** Keeps the pane current while it is shown. */
export function wireRaw() {
  onExchange(() => {
    if (!$("#raw-pane").hidden && !frame) frame = requestAnimationFrame(drawRaw);
  });
}
