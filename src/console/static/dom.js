// DOM helpers of the console: element construction (strings always become text nodes, never
// markup), a query shorthand, the icon set as inline SVG drawn from paths, so every icon renders
// the same in every browser and font (no emoji, no private-use glyphs), times and sizes for
// people, a table's head, and files dropped on an element.
import { language, t } from "./i18n/i18n.js";

/** The first element matching `selector`. */
export const $ = (selector, root = document) => root.querySelector(selector);

/** Creates an element with attributes (`on*` become listeners, `text` the text) and children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat())
    if (child !== null && child !== undefined && child !== false)
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
const CIRCLE = "M8 1.5a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13";

/** Icon paths on a 16x16 grid, stroked; `fill` lists paths drawn filled. */
const ICONS = {
  "arrow-right": ["M2 8h11", "M9 4l4 4-4 4"],
  "arrow-left": ["M14 8H3", "M7 4L3 8l4 4"],
  list: ["M6 4h8", "M6 8h8", "M6 12h8", "M2.5 4h.01", "M2.5 8h.01", "M2.5 12h.01"],
  pencil: ["M11 2.5l2.5 2.5L6 12.5 2.5 13.5l1-3.5z"],
  alert: ["M8 2L15 14H1z", "M8 6.5v3.2", "M8 12v.01"],
  flag: ["M3.5 14.5V2", "M3.5 2.5h9l-2 3 2 3h-9"],
  undo: ["M4 6h6.5a3.5 3.5 0 0 1 0 7H6", "M6.5 3L3.5 6l3 3"],
  compress: ["M8 1v5", "M5.5 3.5L8 6l2.5-2.5", "M8 15v-5", "M5.5 12.5L8 10l2.5 2.5", "M2 8h12"],
  help: [CIRCLE, "M6 6.2a2 2 0 1 1 2.6 1.9c-.4.2-.6.5-.6.9v.5", "M8 11.6v.01"],
  delegate: ["M9 2h5v5", "M14 2L7 9", "M12 9.5V14H2V4h4.5"],
  dot: { fill: ["M8 5.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5"] },
  check: ["M3 8.5l3 3 7-7"],
  cross: ["M4 4l8 8", "M12 4l-8 8"],
  stop: { fill: ["M4 4h8v8H4z"] },
  send: ["M8 13.5V3", "M3.5 7.5L8 3l4.5 4.5"],
  plus: ["M8 3v10", "M3 8h10"],
  trash: ["M2.5 4h11", "M6 4V2.5h4V4", "M4 4l.8 9.5h6.4L12 4"],
  menu: ["M2 4h12", "M2 8h12", "M2 12h12"],
  copy: ["M5.5 5.5h8v8h-8z", "M10.5 5.5v-3h-8v8h3"],
  box: ["M3 3h10v10H3z"],
  "box-check": ["M3 3h10v10H3z", "M5.5 8l2 2 3.5-4"],
  play: { fill: ["M5 3.5l7 4.5-7 4.5z"] },
  spinner: ["M8 1.5a6.5 6.5 0 1 1-6.5 6.5"],
  mic: ["M6 3.5a2 2 0 0 1 4 0v4a2 2 0 0 1-4 0z", "M3.5 7.5a4.5 4.5 0 0 0 9 0", "M8 12v2.5"],
  paperclip: [
    "M10.5 4.5l-5 5a1.5 1.5 0 0 0 2.1 2.1l5.6-5.6a3 3 0 0 0-4.2-4.2L3.4 7.4a4.5 4.5 0 0 0 6.4 6.4l4.2-4.3",
  ],
  upload: ["M8 10.5V2.5", "M4.5 6L8 2.5 11.5 6", "M2.5 11v2.5h11V11"],
  download: ["M8 2.5v8", "M4.5 7L8 10.5 11.5 7", "M2.5 11v2.5h11V11"],
  refresh: ["M13 8a5 5 0 1 1-1.5-3.6", "M13 2.5v2.5h-2.5"],
  folder: ["M1.5 4V13h13V5.5H7.5L6 4z"],
  lock: ["M4 7.5h8v6H4z", "M5.5 7.5V5a2.5 2.5 0 0 1 5 0v2.5"],
};

/** An inline SVG icon (decorative: hidden from assistive technology; pair it with text). */
export function icon(name) {
  const spec = ICONS[name] ?? ICONS.dot;
  const stroked = Array.isArray(spec) ? spec : (spec.stroke ?? []);
  const filled = Array.isArray(spec) ? [] : (spec.fill ?? []);
  const svg = document.createElementNS(SVG, "svg");
  for (const [key, value] of Object.entries({
    class: `icon icon-${name}`,
    viewBox: "0 0 16 16",
    width: "16",
    height: "16",
    "aria-hidden": "true",
    focusable: "false",
  }))
    svg.setAttribute(key, value);
  const path = (d, fill) => {
    const node = document.createElementNS(SVG, "path");
    node.setAttribute("d", d);
    if (fill) node.setAttribute("fill", "currentColor");
    else {
      node.setAttribute("fill", "none");
      node.setAttribute("stroke", "currentColor");
      node.setAttribute("stroke-width", "1.6");
      node.setAttribute("stroke-linecap", "round");
      node.setAttribute("stroke-linejoin", "round");
    }
    svg.append(node);
  };
  for (const d of stroked) path(d, false);
  for (const d of filled) path(d, true);
  return svg;
}

/** Text for screen readers only. */
export const srOnly = (text) => el("span", { class: "sr-only", text });

/** "5 min ago"-style time for lists. */
export function ago(iso) {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return "";
  const s = Math.max(0, (Date.now() - then) / 1000);
  if (s < 60) return t("justNow");
  if (s < 3600) return t("minutesAgo", Math.floor(s / 60));
  if (s < 86400) return t("hoursAgo", Math.floor(s / 3600));
  return new Date(then).toLocaleDateString(language());
}

/** A size for people: bytes, KB or MB. */
export function sizeText(bytes) {
  if (bytes < 1000) return t("bytes", bytes);
  if (bytes < 1_000_000) return t("kilobytes", (bytes / 1000).toFixed(1));
  return t("megabytes", (bytes / 1_000_000).toFixed(1));
}

/** A table's head row of column headings. */
export const tableHead = (headings) =>
  el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", { scope: "col", text: h }))));

/**
 * Calls `take(files)` with the files dropped on `zone`, which is marked `dropping` while files are
 * dragged over it (other drags pass through).
 */
export function onFilesDropped(zone, take) {
  zone.addEventListener("dragover", (e) => {
    if (!e.dataTransfer?.types.includes("Files")) return;
    e.preventDefault();
    zone.classList.add("dropping");
  });
  zone.addEventListener("dragleave", (e) => {
    if (!zone.contains(e.relatedTarget)) zone.classList.remove("dropping");
  });
  zone.addEventListener("drop", (e) => {
    if (!e.dataTransfer?.files.length) return;
    e.preventDefault();
    zone.classList.remove("dropping");
    take([...e.dataTransfer.files]);
  });
}
