// The message box: Enter sends, Shift+Enter adds a line, Esc stops the running task. A message
// that begins with "@<agent>", an agent of the roster, is addressed to that agent: the console
// opens a new conversation with it and sends the rest there (see docs/dev-loop.md). Typing "@"
// at the start offers the agents' names (a click or Tab completes one, Esc closes the list). The
// microphone, where the browser has speech recognition, dictates into the box (voice.js). A message
// may be files alone (attachments.js); the caller adds them to what it sends.
import { $, el } from "../dom.js";
import { agentIcon, agentNames } from "../side/roster.js";
import { hasAttachments } from "./attachments.js";
import { wireVoice } from "./voice.js";

const MENTION = /^@([a-z][a-z0-9-]{0,62})(?:\s+([\s\S]*))?$/;
const PARTIAL = /^@([a-z0-9-]*)$/;

/** The agent among `names` a message is addressed to and the rest of it, or null. */
export function addressed(text, names) {
  const found = MENTION.exec(text);
  if (!found?.[1] || !names.includes(found[1])) return null;
  return { agent: found[1], text: (found[2] ?? "").trim() };
}

/**
 * Wires the message box. `hooks`: ready() (a conversation is open), send(text),
 * address(agent, text), running(), stop(), announce(text).
 */
export function wireComposer(hooks) {
  const form = $("#composer");
  const prompt = $("#prompt");
  const list = $("#mentions");
  const matches = () => {
    const partial = PARTIAL.exec(prompt.value)?.[1];
    return partial === undefined ? [] : agentNames().filter((n) => n.startsWith(partial));
  };
  const hide = () => {
    list.hidden = true;
    list.replaceChildren();
  };
  const complete = (name) => {
    prompt.value = `@${name} `;
    hide();
    prompt.focus();
  };
  prompt.addEventListener("input", () => {
    const names = matches();
    if (names.length === 0) return hide();
    list.replaceChildren(
      ...names.map((name) =>
        el(
          "button",
          { type: "button", class: "chip", "data-agent": name, onclick: () => complete(name) },
          agentIcon(name),
          `@${name}`,
        ),
      ),
    );
    list.hidden = false;
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = prompt.value.trim();
    if ((!text && !hasAttachments()) || !hooks.ready()) return;
    prompt.value = "";
    hide();
    const to = addressed(text, agentNames());
    if (to) hooks.address(to.agent, to.text);
    else hooks.send(text);
  });
  prompt.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    } else if (e.key === "Tab" && !e.shiftKey && !list.hidden && matches().length > 0) {
      e.preventDefault();
      complete(matches()[0]);
    } else if (e.key === "Escape" && !list.hidden) {
      e.preventDefault();
      hide();
    } else if (e.key === "Escape" && hooks.running()) {
      e.preventDefault();
      hooks.stop();
    }
  });
  wireVoice($("#voice"), prompt, hooks.announce);
}
