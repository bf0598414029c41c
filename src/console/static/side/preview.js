// A workspace file shown in the Files panel, inert whatever it holds: Markdown through the
// console's one Markdown renderer (chat/markdown.js: raw HTML escaped, images off, safe links
// only, Trusted Types), text as text, images as an <img> of a data: URL (the page's CSP lets in
// images of its own and data: URLs only; an SVG in an <img> runs no script), anything else not
// previewed (download it). The file's name and contents never become markup.
import { renderMarkdown } from "../chat/markdown.js";
import { el } from "../dom.js";
import { t } from "../i18n/i18n.js";

/** The largest file previewed (bigger ones: download them). */
export const PREVIEW_MAX_BYTES = 2_000_000;
/** Text shown of a text file (the rest is cut, with a note). */
const TEXT_MAX_CHARS = 200_000;
const IMAGE = /^image\/(png|jpeg|gif|webp|svg\+xml)$/;

/** How a file of `mediaType` is previewed: "markdown", "text", "image" or null (not at all). */
export function previewKind(mediaType) {
  const type = String(mediaType ?? "")
    .split(";")[0]
    .trim()
    .toLowerCase();
  if (IMAGE.test(type)) return "image";
  if (type === "text/markdown") return "markdown";
  if (
    type.startsWith("text/") ||
    type === "application/json" ||
    type.endsWith("+json") ||
    type === "application/xml" ||
    type === "application/javascript"
  )
    return "text";
  return null;
}

/** A blob as a data: URL. */
function dataUrl(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

/** The preview's body for `blob` (the file `name`, served as `mediaType`). */
export async function previewBody(name, mediaType, blob) {
  let kind = previewKind(mediaType);
  if (kind === null && blob.size <= PREVIEW_MAX_BYTES) {
    // A file the server could not type may still be text: shown if it is valid UTF-8.
    const text = await blob.text();
    if (!text.includes("\uFFFD")) kind = "text";
  }
  if (kind === null) return el("p", { class: "muted", text: t("noPreview", mediaType) });
  if (kind === "image") {
    const type = String(mediaType).split(";")[0].trim();
    // The bytes relabelled with the listed type: a data: URL the CSP admits, shown as an image.
    const url = await dataUrl(new Blob([blob], { type }));
    return el("img", { class: "file-image", src: url, alt: name });
  }
  const text = await blob.text();
  const shown = text.length > TEXT_MAX_CHARS ? text.slice(0, TEXT_MAX_CHARS) : text;
  const cut =
    text.length > shown.length ? el("p", { class: "muted", text: t("previewCut") }) : null;
  if (kind === "markdown") {
    const body = el("div", { class: "markdown file-markdown" });
    renderMarkdown(body, shown);
    return el("div", {}, body, cut);
  }
  return el("div", {}, el("pre", { class: "file-text", text: shown }), cut);
}
