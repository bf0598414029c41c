// The inspector's "what the model saw": the task's latest model requests (GET
// /api/tasks/<id>/prompt, owner only), newest first, the newest open: which call, the system
// prompt, the tools by name, each message (text, tool calls with their input, tool results), and
// the request's body exactly as the model received it.
import { contentText } from "../../../model/request-text.ts";
import { el } from "../dom.js";
import { t } from "../i18n/i18n.js";

/** The section of the inspector for a prompt view (`{ requests }`); "none yet" when empty. */
export function promptSection(view) {
  const requests = [...(view?.requests || [])].reverse();
  if (requests.length === 0) return [el("p", { class: "muted", text: t("promptNone") })];
  return requests.map((request, i) => requestDetails(request, i === 0));
}

function requestDetails(request, open) {
  const body = JSON.parse(request.body);
  const tools = (body.tools || []).map((tool) => tool.name);
  return el(
    "details",
    { class: "prompt-request", open },
    el("summary", {
      text: t("promptRequest", {
        seq: request.seq,
        kind: request.kind,
        turn: request.turn,
        attempt: request.attempt,
        at: request.at,
      }),
    }),
    el("h4", { text: t("promptSystem") }),
    el("pre", { text: contentText(body.system ?? "") }),
    el("h4", { text: t("promptTools", tools.length) }),
    el("p", { text: tools.join(", ") }),
    ...(body.messages || []).flatMap((message) => [
      el("h4", { text: message.role }),
      el("pre", { text: contentText(message.content) }),
    ]),
    el(
      "details",
      { class: "raw" },
      el("summary", { text: t("promptRaw", request.body.length) }),
      el("pre", { text: request.body }),
    ),
  );
}
