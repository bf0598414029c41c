// The State panel: the state of long work in the open agent's workspace (workspace.js says whose),
// read-only, from GET /api/workspaces/<agent>/state: where the work stands (PROGRESS.json), the
// features and their tests (feature_status.json), the latest handoff (HANDOFF.md, through the
// console's one Markdown renderer), the other state files as text, the checkpoints and the change
// history. Everything in it was written by a model or a person: it only ever becomes text (the
// handoff: inert Markdown).
import { api } from "../api.js";
import { renderMarkdown } from "../chat/markdown.js";
import { $, ago, el, tableHead } from "../dom.js";
import { t, term } from "../i18n/i18n.js";
import { readPane, sameScope, stateUrl } from "../workspace.js";

const panel = { scope: null, round: 0 };
const PROGRESS_LISTS = ["accomplished", "remaining", "decisions", "blockers", "notes"];

/** A JSON state file's value, or null; `invalid` when its text does not parse. */
function parsed(file) {
  if (!file?.text) return { value: null };
  try {
    return { value: JSON.parse(file.text) };
  } catch (error) {
    return { value: null, invalid: error.message };
  }
}

/** A section: its heading, then `body` (or `empty` as a muted line). */
const section = (title, empty, ...body) =>
  el(
    "section",
    { class: "state-section" },
    el("h3", { text: title }),
    ...(body.filter(Boolean).length > 0 ? body : [el("p", { class: "muted", text: empty })]),
  );

const strings = (list) => (Array.isArray(list) ? list.filter((x) => typeof x === "string") : []);

/** PROGRESS.json: its summary, its lists, where to continue and who next. */
function progressSection(file) {
  const { value, invalid } = parsed(file);
  if (invalid) return section("PROGRESS.json", "", invalidNote(invalid, file.text));
  if (!value) return section("PROGRESS.json", t("noProgress"));
  const lists = PROGRESS_LISTS.filter((name) => strings(value[name]).length > 0).map((name) =>
    el(
      "div",
      { class: `progress-list progress-${name}` },
      el("h4", { text: term("progressLists", name) }),
      el("ul", {}, ...strings(value[name]).map((item) => el("li", { text: item }))),
    ),
  );
  const facts = [
    ["continueFrom", value.continueFrom],
    ["nextAgent", value.nextAgent],
  ].filter(([, v]) => typeof v === "string");
  return section(
    "PROGRESS.json",
    t("noProgress"),
    typeof value.summary === "string" ? el("p", { class: "summary", text: value.summary }) : null,
    ...lists,
    facts.length > 0
      ? el(
          "dl",
          { class: "facts" },
          ...facts.flatMap(([k, v]) => [
            el("dt", { text: term("progressLists", k) }),
            el("dd", { text: v }),
          ]),
        )
      : null,
  );
}

/** feature_status.json: the totals, and each feature with its tests. */
function featuresSection(file) {
  const { value, invalid } = parsed(file);
  if (invalid) return section("feature_status.json", "", invalidNote(invalid, file.text));
  const features = Array.isArray(value?.features) ? value.features : [];
  if (features.length === 0) return section("feature_status.json", t("noFeatures"));
  const rows = features.map((f) =>
    el(
      "tr",
      { class: `feature feature-${String(f.status)}` },
      el(
        "td",
        { text: String(f.id ?? "") },
        f.title ? el("div", { class: "muted", text: String(f.title) }) : null,
      ),
      el("td", { text: term("featureStates", String(f.status), String(f.status)) }),
      el("td", {
        class: "num",
        text: `${Number(f.testsPassing) || 0}/${Number(f.testsTotal) || 0}${f.regression ? ` ${t("regression")}` : ""}`,
      }),
    ),
  );
  return section(
    "feature_status.json",
    t("noFeatures"),
    el("p", { class: "muted", text: t("featureTotals", value) }),
    el("table", { class: "log features" }, tableHead(t("featureHeads")), el("tbody", {}, ...rows)),
  );
}

/** HANDOFF.md as Markdown (inert: the console's renderer). */
function handoffSection(file) {
  if (!file?.text) return section("HANDOFF.md", t("noHandoff"));
  const body = el("div", { class: "markdown handoff" });
  renderMarkdown(body, file.text);
  return section("HANDOFF.md", t("noHandoff"), body);
}

const invalidNote = (why, text) =>
  el(
    "div",
    {},
    el("p", { class: "state-failed", text: t("invalidFile", why) }),
    el("pre", { text }),
  );

/** The other state files, as text, each folded. */
function otherFiles(files) {
  return files
    .filter((f) => f.text !== null)
    .map((f) =>
      el(
        "details",
        { class: "state-file" },
        el(
          "summary",
          {},
          f.name,
          el("span", { class: "muted", text: ` · ${t("keptBy", f.keptBy)}` }),
        ),
        el("pre", { text: f.text }),
      ),
    );
}

/** A section of a list: its title (with the count), `draw(items)`, or the empty line. */
const listSection = (titleKey, emptyKey, items, draw) =>
  section(t(titleKey, items.length), t(emptyKey), items.length > 0 ? draw(items) : null);

/** One checkpoint: its id, label, files, who took it and when. */
const checkpointItem = (c) =>
  el(
    "li",
    { "data-checkpoint": c.id },
    el("strong", { text: c.id }),
    ` ${c.label} `,
    el("span", {
      class: "muted",
      text: `· ${t("fileCount", c.files)} · ${c.automatic ? t("automatic") : t("byTheAgent")} · ${ago(c.createdAt)}`,
    }),
  );

/** One change of the history: when, what, who, lines added and removed. */
const changeRow = (c) =>
  el(
    "tr",
    { class: `change op-${c.op}` },
    el("td", { class: "muted", text: ago(c.at) }),
    el(
      "td",
      {},
      el("strong", { text: term("ops", c.op, c.op) }),
      c.path ? ` ${c.path}` : "",
      el("div", { class: "muted", text: c.line }),
    ),
    el("td", { text: c.person ? t("byPerson", c.person) : c.agent || "" }),
    el("td", { class: "num", text: `+${c.added} −${c.removed}` }),
  );

const checkpointsSection = (checkpoints) =>
  listSection("checkpointsTitle", "noCheckpoints", checkpoints, (items) =>
    el("ul", { class: "checkpoints" }, ...items.map(checkpointItem)),
  );

const historySection = (changes) =>
  listSection("historyTitle", "noChanges", changes, (items) =>
    el(
      "table",
      { class: "log changes" },
      tableHead(t("changeHeads")),
      el("tbody", {}, ...items.map(changeRow)),
    ),
  );

/** Shows the state of `scope`'s workspace; reads it unless `read` is false. */
export function showState(scope, { read = true } = {}) {
  if (!sameScope(scope, panel.scope)) panel.scope = scope;
  if (read) return refreshState();
}

/** Reads the state again and draws it. */
export function refreshState() {
  const root = $("#state-pane");
  return readPane(
    root,
    panel,
    (scope) => api(stateUrl(scope)),
    (state) => draw(root, state),
    (message) => t("stateFailed", message),
  );
}

/** Draws the state read. */
function draw(root, state) {
  const byName = new Map(state.files.map((f) => [f.name, f]));
  const shown = ["PROGRESS.json", "feature_status.json", "HANDOFF.md"];
  root.replaceChildren(
    el(
      "div",
      { class: "pane-head" },
      el(
        "button",
        { type: "button", class: "secondary", onclick: () => refreshState() },
        t("refresh"),
      ),
    ),
    progressSection(byName.get("PROGRESS.json")),
    featuresSection(byName.get("feature_status.json")),
    handoffSection(byName.get("HANDOFF.md")),
    ...otherFiles(state.files.filter((f) => !shown.includes(f.name))),
    checkpointsSection(state.checkpoints),
    historySection(state.changes),
  );
}
