// The console's languages: English and Portuguese (Brazil). The language is the one the person
// chose with the switch (kept in localStorage), else the first of the browser's languages
// (navigator.languages) the console speaks (any "pt" is Brazilian Portuguese), else English.
// Scripts take their words from t(); the page's own markup names its keys in data-i18n
// attributes (the text) and data-i18n-<attribute> (placeholder, aria-label, title).
import { EN } from "./lang-en.js";
import { PT_BR } from "./lang-pt-br.js";

const KEY = "a2a-console:lang";
const DICTIONARIES = { en: EN, "pt-BR": PT_BR };
const ATTRIBUTES = ["placeholder", "aria-label", "title"];

/** The languages of the switch: tag and name (in its own language). */
export const LANGUAGES = [
  ["en", "English"],
  ["pt-BR", "Português (Brasil)"],
];

const known = (tag) => typeof tag === "string" && Object.hasOwn(DICTIONARIES, tag);

/** The language the browser asks for, of those the console speaks. */
export function browserLanguage(tags = navigator.languages || [navigator.language]) {
  for (const tag of tags) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base === "pt") return "pt-BR";
    if (base === "en") return "en";
  }
  return "en";
}

let current = (() => {
  const chosen = localStorage.getItem(KEY);
  return known(chosen) ? chosen : browserLanguage();
})();

/** The console's language tag ("en" or "pt-BR"). */
export const language = () => current;

const own = (dictionary, key) => (Object.hasOwn(dictionary, key) ? dictionary[key] : undefined);

/** The string `key` in the current language, a function's value applied to `args`. */
export function t(key, ...args) {
  const value = own(DICTIONARIES[current], key) ?? own(EN, key);
  return typeof value === "function" ? value(...args) : (value ?? key);
}

/** `name` in the group `group` (states, kinds, ...), or `fallback` when no language has it. */
export function term(group, name, fallback = name) {
  const find = (dictionary) => {
    const table = own(dictionary, group);
    return table ? own(table, name) : undefined;
  };
  return find(DICTIONARIES[current]) ?? find(EN) ?? fallback;
}

/** Switches (and remembers) the language, and translates the page's markup. */
export function setLanguage(tag) {
  if (!known(tag)) return;
  current = tag;
  localStorage.setItem(KEY, tag);
  translatePage();
}

/** Puts the current language's words into the page's markup (and its lang attribute). */
export function translatePage(root = document) {
  document.documentElement.lang = current;
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const attribute of ATTRIBUTES)
    for (const node of root.querySelectorAll(`[data-i18n-${attribute}]`))
      node.setAttribute(attribute, t(node.getAttribute(`data-i18n-${attribute}`)));
}
