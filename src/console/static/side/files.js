// The Files panel: the open agent's workspace as the person sees it (workspace.js says whose):
// folders to browse, each file's size and age, a preview (preview.js), a download, a delete, and
// uploads (a button, or files dropped on the panel) into the folder shown, all through the files
// API. A state file (PROGRESS.json...) is listed with what keeps it and cannot be deleted here.
// Names and contents are the workspace's, so hostile: they only ever become text.
import { api, apiBytes } from "../api.js";
import { $, ago, el, icon, onFilesDropped, sizeText, tableHead } from "../dom.js";
import { t } from "../i18n/i18n.js";
import { fileUrl, readPane, sameScope } from "../workspace.js";
import { PREVIEW_MAX_BYTES, previewBody } from "./preview.js";

const panel = { scope: null, folder: "", files: [], round: 0, announce: () => {} };

/** The folders and files directly in `folder` (a path ending in "/", or "" for the root). */
function entriesIn(files, folder) {
  const folders = new Set();
  const here = [];
  for (const file of files) {
    if (!file.path.startsWith(folder)) continue;
    const rest = file.path.slice(folder.length);
    const slash = rest.indexOf("/");
    if (slash >= 0) folders.add(rest.slice(0, slash + 1));
    else here.push(file);
  }
  return { folders: [...folders].sort(), files: here };
}

/** The panel's frame: where it is, upload and refresh, then `body`. */
function frame(...body) {
  const parts = panel.folder.split("/").filter(Boolean);
  const crumbs = [
    el("button", { type: "button", class: "link", onclick: () => enter("") }, t("workspaceRoot")),
    ...parts.flatMap((name, i) => [
      " / ",
      el(
        "button",
        {
          type: "button",
          class: "link",
          onclick: () => enter(`${parts.slice(0, i + 1).join("/")}/`),
        },
        name,
      ),
    ]),
  ];
  const upload = el("input", { id: "files-upload", type: "file", multiple: true, hidden: true });
  upload.addEventListener("change", () => {
    uploadFiles([...upload.files]);
    upload.value = "";
  });
  return [
    el(
      "div",
      { class: "pane-head" },
      el("nav", { class: "crumbs", "aria-label": t("folder") }, ...crumbs),
      el(
        "button",
        {
          type: "button",
          class: "secondary",
          id: "files-upload-button",
          onclick: () => upload.click(),
        },
        icon("upload"),
        t("upload"),
      ),
      el(
        "button",
        {
          type: "button",
          class: "icon-button",
          title: t("refresh"),
          "aria-label": t("refresh"),
          onclick: () => refreshFiles(),
        },
        icon("refresh"),
      ),
      upload,
    ),
    el("p", { class: "hint muted", text: t("dropHint") }),
    ...body,
    el("div", { id: "file-preview" }),
  ];
}

/** One file's row: its name (opens the preview), size, age, and download and delete. */
function fileRow(file) {
  const name = file.path.slice(panel.folder.length);
  const actions = el(
    "td",
    { class: "file-actions" },
    el(
      "button",
      {
        type: "button",
        class: "icon-button",
        title: t("download"),
        "aria-label": t("downloadNamed", file.path),
        onclick: () => download(file),
      },
      icon("download"),
    ),
    file.keptBy
      ? el("span", { class: "muted kept", title: t("keptBy", file.keptBy) }, icon("lock"))
      : el(
          "button",
          {
            type: "button",
            class: "icon-button",
            title: t("deleteFile"),
            "aria-label": t("deleteFileNamed", file.path),
            onclick: () => remove(file),
          },
          icon("trash"),
        ),
  );
  return el(
    "tr",
    { class: "file", "data-path": file.path },
    el(
      "td",
      {},
      el("button", { type: "button", class: "link file-name", onclick: () => preview(file) }, name),
      file.keptBy ? el("span", { class: "muted kept-by", text: t("keptBy", file.keptBy) }) : null,
    ),
    el("td", { class: "num", text: sizeText(file.size) }),
    el("td", { class: "muted", text: ago(file.modified) }),
    actions,
  );
}

/** Draws the listing of the folder shown. */
function draw() {
  const root = $("#files-pane");
  const { folders, files } = entriesIn(panel.files, panel.folder);
  if (folders.length === 0 && files.length === 0) {
    root.replaceChildren(...frame(el("p", { class: "muted empty", text: t("noFiles") })));
    return;
  }
  const head = tableHead(t("fileHeads"));
  const folderRows = folders.map((name) =>
    el(
      "tr",
      { class: "folder" },
      el(
        "td",
        { colspan: 4 },
        el(
          "button",
          { type: "button", class: "link", onclick: () => enter(panel.folder + name) },
          icon("folder"),
          name,
        ),
      ),
    ),
  );
  root.replaceChildren(
    ...frame(
      el("table", { class: "files" }, head, el("tbody", {}, ...folderRows, ...files.map(fileRow))),
    ),
  );
}

function enter(folder) {
  panel.folder = folder;
  draw();
}

/** Shows the workspace of `scope` (workspace.js), from its root; reads it unless it is shown. */
export function showFiles(scope, { read = true } = {}) {
  if (!sameScope(scope, panel.scope)) {
    panel.scope = scope;
    panel.folder = "";
    panel.files = [];
  }
  if (read) return refreshFiles();
}

/** Reads the listing again and draws it (the folder shown stays, while it still has files). */
export function refreshFiles() {
  return readPane(
    $("#files-pane"),
    panel,
    async (scope) => (await api(fileUrl(scope))).files,
    (files) => {
      panel.files = files;
      if (!files.some((f) => f.path.startsWith(panel.folder))) panel.folder = "";
      draw();
    },
    (message) => t("filesFailed", message),
  );
}

/** Uploads `files` into the folder shown, one by one, then reads the listing again. */
export async function uploadFiles(files) {
  const scope = panel.scope;
  if (!scope || scope.none) return panel.announce(t("noWorkspaceYet"));
  for (const file of files) {
    const path = panel.folder + file.name;
    try {
      const response = await apiBytes(fileUrl(scope, path), {
        method: "PUT",
        headers: { "Content-Type": file.type || "application/octet-stream" },
        body: file,
      });
      const entry = await response.json().catch(() => ({}));
      panel.announce(
        entry.checkpoint ? t("replaced", path, entry.checkpoint) : t("uploaded", path),
      );
    } catch (error) {
      panel.announce(t("uploadFailed", path, error.message));
    }
  }
  await refreshFiles();
}

/** The file's bytes, as a Blob (the files API's download). */
async function bytesOf(file) {
  return (await apiBytes(fileUrl(panel.scope, file.path))).blob();
}

/** Shows `file` in the preview. */
async function preview(file) {
  const box = $("#file-preview");
  const title = el(
    "h4",
    { class: "preview-title" },
    el("span", { text: file.path }),
    el("span", { class: "muted", text: ` · ${file.mediaType} · ${sizeText(file.size)}` }),
  );
  if (file.size > PREVIEW_MAX_BYTES) {
    box.replaceChildren(title, el("p", { class: "muted", text: t("tooLargeToPreview") }));
    return;
  }
  box.replaceChildren(title, el("p", { class: "muted", text: t("loading") }));
  try {
    const body = await previewBody(file.path, file.mediaType, await bytesOf(file));
    box.replaceChildren(title, body);
  } catch (error) {
    box.replaceChildren(title, el("p", { class: "state-failed", text: error.message }));
  }
}

/** Saves `file` in the browser's downloads. */
async function download(file) {
  try {
    const url = URL.createObjectURL(await bytesOf(file));
    const link = el("a", { href: url, download: file.path.split("/").pop() });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (error) {
    panel.announce(t("downloadFailed", file.path, error.message));
  }
}

/** Deletes `file`, after asking. */
async function remove(file) {
  if (!window.confirm(t("confirmDeleteFile", file.path))) return;
  try {
    await apiBytes(fileUrl(panel.scope, file.path), { method: "DELETE" });
    panel.announce(t("deletedFile", file.path));
  } catch (error) {
    panel.announce(t("deleteFileFailed", file.path, error.message));
  }
  await refreshFiles();
}

/** Wires the panel: files dropped on it are uploaded; `announce(text)` says what happened. */
export function wireFiles(announce) {
  panel.announce = announce;
  onFilesDropped($("#files-pane"), uploadFiles);
}
