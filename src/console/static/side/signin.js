// Who is calling, as the page shows it: signed in (or open), or signed out with what to do. A
// server that needs a token gets a page that says so and where a token comes from, a disabled
// message box and no agent to open; a token the server does not accept (401: unknown, revoked,
// expired or mistyped) is said so, and one it refuses (403) with the server's reason; neither is
// kept. One it could not check (429: too many failed tries, or the server out of reach) is kept,
// to be tried again.
import { api, auth } from "../api.js";
import { $, el } from "../dom.js";
import { t } from "../i18n/i18n.js";

/** Sets the message box's placeholder by its i18n key (a language switch keeps it). */
function placeholder(key) {
  const prompt = $("#prompt");
  prompt.dataset.i18nPlaceholder = key;
  prompt.placeholder = t(key);
}

/** The page signed in (or open to anonymous callers): the message box usable again. */
function showSignedIn(user) {
  $("#who").textContent = user === "anonymous" ? t("whoOpen") : t("whoSignedIn", user);
  $("#signin").hidden = true;
  $("#signout").hidden = !auth.token;
  $("#prompt").disabled = false;
  $("#send").disabled = false;
  placeholder("messagePlaceholder");
}

/** The page signed out: what is wrong, what to do, nothing that looks usable but is not. */
function showSignedOut(line) {
  $("#who").textContent = line;
  $("#signin").hidden = false;
  $("#signout").hidden = true;
  $("#prompt").disabled = true;
  $("#send").disabled = true;
  placeholder("promptSignedOut");
  $("#agent-icon").replaceChildren();
  $("#agent-name").textContent = t("signInNeeded");
  $("#conversation-title").textContent = "";
  $("#conversations").replaceChildren();
  $("#transcript").replaceChildren(
    el("p", { id: "signin-help", class: "note", text: t("signInHelp") }),
  );
  $("#token").focus();
}

/** The line for a failed /api/me, and whether the token sent (if any) is to be kept. */
function failureLine(error, sent) {
  if (error.status === 429) return { line: t("notChecked", error.message), keep: true };
  if (!sent && (error.status === 401 || error.status === 403))
    return { line: t("whoSignIn"), keep: false };
  if (error.status === 401) return { line: t("tokenNotAccepted"), keep: false };
  if (error.status === 403) return { line: t("tokenRefused", error.message), keep: false };
  return { line: error.message, keep: true };
}

/** Asks the server who is calling; shows it; resolves with the user, or null when signed out. */
export async function whoAmI() {
  const sent = auth.token;
  try {
    const { user } = await api("/api/me");
    showSignedIn(user);
    return user;
  } catch (error) {
    const { line, keep } = failureLine(error, Boolean(sent));
    if (!keep && sent) auth.token = "";
    showSignedOut(line);
    return null;
  }
}
