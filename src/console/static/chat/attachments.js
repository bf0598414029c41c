// Files attached to the next message: chosen with the paperclip or dropped on the chat, shown as
// chips above the message box (each can be taken off), and sent as A2A file parts of the message
// (`raw`: the bytes in base64, with `filename` and `mediaType`), after its text. A message's parts
// stay under the server's body limit: the attachments of one message are at most
// ATTACH_MAX_BYTES (a bigger file goes in through the Files panel). Names stay text.
import { $, el, icon, onFilesDropped, sizeText } from "../dom.js";
import { t } from "../i18n/i18n.js";

/** The most bytes of files one message carries (base64 grows them by a third). */
export const ATTACH_MAX_BYTES = 700_000;

/** Media types by extension, for files the browser gives none. */
const BY_EXTENSION = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** The media type a file part of `file` says it is. */
export function mediaTypeOf(file) {
  if (file.type) return file.type;
  const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? "";
  return Object.hasOwn(BY_EXTENSION, extension)
    ? BY_EXTENSION[extension]
    : "application/octet-stream";
}

/** A file's bytes in base64. */
function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

const attached = [];
let say = () => {};

function draw() {
  const list = $("#attachments");
  list.hidden = attached.length === 0;
  list.replaceChildren(
    ...attached.map((file, i) =>
      el(
        "li",
        { class: "attachment", "data-name": file.name },
        icon("paperclip"),
        el("span", { class: "name", text: file.name }),
        el("span", { class: "muted", text: sizeText(file.size) }),
        el(
          "button",
          {
            type: "button",
            class: "icon-button",
            title: t("removeAttachment"),
            "aria-label": t("removeAttachmentNamed", file.name),
            onclick: () => {
              attached.splice(i, 1);
              draw();
            },
          },
          icon("cross"),
        ),
      ),
    ),
  );
}

/** Attaches `files` to the next message, as long as they fit; says what did not. */
export function attach(files) {
  for (const file of files) {
    const total = attached.reduce((n, f) => n + f.size, 0) + file.size;
    if (total > ATTACH_MAX_BYTES) say(t("attachTooLarge", file.name, sizeText(ATTACH_MAX_BYTES)));
    else attached.push(file);
  }
  draw();
}

/** Whether files are attached. */
export const hasAttachments = () => attached.length > 0;

/**
 * The parts of a message of `text` with the attached files (taken off: the next message starts
 * without them).
 */
export async function messageParts(text) {
  const files = attached.splice(0);
  draw();
  const parts = text ? [{ text }] : [];
  for (const file of files)
    parts.push({ raw: await base64Of(file), filename: file.name, mediaType: mediaTypeOf(file) });
  return parts;
}

/** Wires the paperclip and dropping files on `zone`; `announce(text)` says what was refused. */
export function wireAttachments(zone, announce) {
  say = announce;
  const input = $("#attach-input");
  $("#attach").prepend(icon("paperclip"));
  $("#attach").addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    attach([...input.files]);
    input.value = "";
  });
  onFilesDropped(zone, attach);
}
