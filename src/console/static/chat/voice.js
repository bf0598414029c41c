// Voice input: a microphone button beside the message box, shown only where the browser offers
// speech recognition (window.SpeechRecognition or webkitSpeechRecognition). Pressed, it listens
// in the console's language and writes what it hears after what is already typed (interim
// results replaced as they firm up); pressed again, or at the end of speech, it stops. Nothing is
// sent by itself: the person reads and sends. A browser whose recognizer turns out unusable (no
// speech service, language not supported) hides the button again and says why.
import { icon } from "../dom.js";
import { language, t } from "../i18n/i18n.js";

/** The browser's speech recognition constructor, or null. */
export function recognizer() {
  const found = window.SpeechRecognition || window.webkitSpeechRecognition;
  return typeof found === "function" ? found : null;
}

/** Errors after which the button goes: the browser has no usable speech service. */
const UNAVAILABLE = new Set(["service-not-allowed", "language-not-supported", "network"]);
const REFUSED = new Set(["not-allowed", "audio-capture"]);

/** Wires `button` to dictate into `prompt`; `announce(text)` speaks to screen readers. */
export function wireVoice(button, prompt, announce) {
  const Recognition = recognizer();
  button.hidden = !Recognition;
  if (!Recognition) return;
  button.replaceChildren(icon("mic"));
  let listening = null;
  const pressed = (on) => button.setAttribute("aria-pressed", String(on));
  const unavailable = () => {
    button.hidden = true;
    announce(t("voiceUnavailable"));
  };
  button.addEventListener("click", () => {
    if (listening) return listening.stop();
    let recognition;
    try {
      recognition = new Recognition();
    } catch {
      return unavailable();
    }
    recognition.lang = language() === "pt-BR" ? "pt-BR" : "en-US";
    recognition.interimResults = true;
    recognition.continuous = false;
    const before = prompt.value.trimEnd();
    recognition.onresult = (event) => {
      const heard = Array.from(event.results, (result) => result?.[0]?.transcript ?? "")
        .join("")
        .trim();
      prompt.value = [before, heard].filter(Boolean).join(" ");
    };
    recognition.onerror = (event) => {
      if (UNAVAILABLE.has(event.error)) unavailable();
      else if (REFUSED.has(event.error)) announce(t("microphoneRefused"));
    };
    recognition.onend = () => {
      if (listening === recognition) listening = null;
      pressed(false);
      prompt.focus();
    };
    try {
      recognition.start();
    } catch {
      return unavailable();
    }
    listening = recognition;
    pressed(true);
    announce(t("listening"));
  });
}
