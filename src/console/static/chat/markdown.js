// Answers as Markdown, inert by construction. markdown-it renders with raw HTML off (every `<`
// in the answer is escaped), images off (`![a](u)` stays text: no tracking pixels, no data:
// images) and links only to http:, https: and mailto: (no javascript:, data:, vbscript:, file:
// or relative URLs). The HTML reaches the page only through the Trusted Types policy
// "console-markdown", whose createHTML *is* that renderer (the page's CSP refuses every other
// HTML sink), and is then checked against an allowlist of elements and attributes before it is
// shown. Anything else is kept as text.
import MarkdownIt from "markdown-it";

const SAFE_URL = /^(https?:|mailto:)/i;

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
md.disable("image");
md.validateLink = (url) => SAFE_URL.test(url.trim());

const rules = md.renderer.rules;
const renderToken = (tokens, i, options, _env, self) => self.renderToken(tokens, i, options);
rules.link_open = (tokens, i, options, env, self) => {
  tokens[i].attrSet("target", "_blank");
  tokens[i].attrSet("rel", "noopener noreferrer nofollow");
  return renderToken(tokens, i, options, env, self);
};
// Headings sit under the page's own h1/h2: an answer's "# Title" becomes h3.
const shift = (tokens, i, options, env, self) => {
  tokens[i].tag = `h${Math.min(6, Number(tokens[i].tag.slice(1)) + 2)}`;
  return renderToken(tokens, i, options, env, self);
};
rules.heading_open = shift;
rules.heading_close = shift;
// Table alignment as a class: the CSP forbids inline styles.
const aligned = (tokens, i, options, env, self) => {
  const token = tokens[i];
  const align = /text-align:(left|right|center)/.exec(token.attrGet("style") || "")?.[1];
  token.attrs = (token.attrs || []).filter(([name]) => name !== "style");
  if (align) token.attrSet("class", `align-${align}`);
  return renderToken(tokens, i, options, env, self);
};
rules.th_open = aligned;
rules.td_open = aligned;

const policy = window.trustedTypes?.createPolicy("console-markdown", {
  createHTML: (source) => md.render(source),
});

/** Elements an answer may contain, each with the attributes it may keep. */
const ALLOWED = new Map(
  Object.entries({
    P: [],
    BR: [],
    HR: [],
    H3: [],
    H4: [],
    H5: [],
    H6: [],
    UL: [],
    OL: ["start"],
    LI: [],
    BLOCKQUOTE: [],
    PRE: [],
    CODE: ["class"],
    EM: [],
    STRONG: [],
    S: [],
    A: ["href", "title", "target", "rel"],
    TABLE: [],
    THEAD: [],
    TBODY: [],
    TR: [],
    TH: ["class"],
    TD: ["class"],
  }),
);

/** Keeps allowed elements and attributes; anything else becomes its text. */
function scrub(root) {
  for (const node of [...root.querySelectorAll("*")]) {
    const keep = ALLOWED.get(node.tagName);
    const href = node.getAttribute("href");
    if (!keep || (node.tagName === "A" && !(href && SAFE_URL.test(href)))) {
      node.replaceWith(...(keep ? node.childNodes : [document.createTextNode(node.textContent)]));
      continue;
    }
    for (const { name } of [...node.attributes])
      if (!keep.includes(name)) node.removeAttribute(name);
    if (
      node.hasAttribute("class") &&
      !/^(language-[\w-]+|align-(left|right|center))$/.test(node.getAttribute("class"))
    )
      node.removeAttribute("class");
  }
}

/** Renders `source` (Markdown from the model) into `target`, replacing its children. */
export function renderMarkdown(target, source) {
  const template = document.createElement("template");
  template.innerHTML = policy ? policy.createHTML(source) : md.render(source);
  scrub(template.content);
  target.replaceChildren(template.content);
}
