/**
 * HTML to readable text for web_fetch, on the runtime's streaming HTMLRewriter (lol-html), no
 * dependency. Drops script, style, noscript, svg, template, iframe, object, canvas and math
 * content; text directly in <head> cannot exist (HTML parsing moves it into <body>), so dropping
 * those plus taking <title> apart drops the head. Keeps structure as line breaks: blank lines
 * around paragraphs, headings (as "#" marks), tables and lists; "- " or "1. " per list item;
 * " | " between table cells. Decodes entities, collapses whitespace (except inside <pre>), and
 * keeps link text followed by the URL in parentheses when the href is an absolute http(s) URL.
 */

const SKIPPED = new Set([
  "script",
  "style",
  "noscript",
  "svg",
  "template",
  "iframe",
  "object",
  "canvas",
  "math",
]);
const PARAGRAPH = new Set(
  "p blockquote pre table ul ol dl section article header footer figure hr main nav aside form fieldset details address".split(
    " ",
  ),
);
const LINE = new Set(
  "div br li tr dt dd caption summary figcaption legend label option thead tbody tfoot hgroup dialog".split(
    " ",
  ),
);
const VOID = new Set(
  "area base br col embed hr img input link meta param source track wbr".split(" "),
);

/** Named character references decoded (name:code point); others are left as written. */
const NAMED = new Map(
  "amp:38 lt:60 gt:62 quot:34 apos:39 nbsp:160 copy:169 reg:174 trade:8482 hellip:8230 mdash:8212 ndash:8211 lsquo:8216 rsquo:8217 ldquo:8220 rdquo:8221 sbquo:8218 bdquo:8222 laquo:171 raquo:187 lsaquo:8249 rsaquo:8250 bull:8226 middot:183 deg:176 plusmn:177 times:215 divide:247 frac12:189 frac14:188 frac34:190 euro:8364 pound:163 yen:165 cent:162 sect:167 para:182 dagger:8224 larr:8592 rarr:8594 uarr:8593 darr:8595 harr:8596 le:8804 ge:8805 ne:8800 minus:8722 ensp:8194 emsp:8195 thinsp:8201 shy:173 zwj:8205 zwnj:8204"
    .split(" ")
    .map((pair) => pair.split(":"))
    .map(([name = "", code = "0"]): [string, string] => [name, String.fromCodePoint(Number(code))]),
);
const LEGACY = new Set(["amp", "lt", "gt", "quot", "nbsp", "copy", "reg"]);

/** Decodes character references: numeric ones, and the common named ones. */
export function decodeEntities(text: string): string {
  return text.replace(
    /&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z][a-zA-Z0-9]*)(;?)/g,
    (all: string, ref: string, semi: string) => {
      if (ref.startsWith("#")) {
        const code =
          ref[1] === "x" || ref[1] === "X"
            ? Number.parseInt(ref.slice(2), 16)
            : Number(ref.slice(1));
        const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
        return valid ? String.fromCodePoint(code) : "\uFFFD";
      }
      const named = NAMED.get(ref);
      return named !== undefined && (semi === ";" || LEGACY.has(ref)) ? named : all;
    },
  );
}

/** Accumulates text with lazily applied breaks, so there are no leading or doubled blank lines. */
class TextBuilder {
  readonly parts: string[] = [];
  #break = 0;
  #prefix = "";
  #endsWithSpace = false;

  breakLine(lines: 1 | 2): void {
    this.#break = Math.max(this.#break, lines);
  }

  lineBreak(): void {
    this.#break = Math.min(this.#break + 1, 2);
  }

  prefix(text: string): void {
    this.#prefix = text;
  }

  append(raw: string, preformatted: boolean): void {
    let text = preformatted ? raw : raw.replace(/\s+/g, " ");
    const atLineStart = this.parts.length === 0 || this.#break > 0;
    if (!preformatted && atLineStart) text = text.trimStart();
    else if (!preformatted && this.#endsWithSpace && text.startsWith(" ")) text = text.slice(1);
    if (text === "") return;
    if (this.#break > 0 && this.parts.length > 0) {
      const last = this.parts.length - 1;
      this.parts[last] = (this.parts[last] ?? "").trimEnd();
      this.parts.push("\n".repeat(this.#break));
    }
    if (this.#prefix !== "") this.parts.push(this.#prefix);
    this.parts.push(text);
    this.#break = 0;
    this.#prefix = "";
    this.#endsWithSpace = /\s$/.test(text);
  }

  toString(): string {
    return this.parts.join("").trim();
  }
}

/**
 * Converts an HTML document to readable text and its <title> (null when there is none).
 * Runs on `HTMLRewriter`, so it needs the Workers runtime.
 */
export async function htmlToText(html: string): Promise<{ title: string | null; text: string }> {
  const out = new TextBuilder();
  let skipDepth = 0;
  let preDepth = 0;
  let title: string | null = null;
  let titleBuffer: string | null = null;
  let pending = "";
  const lists: Array<{ ordered: boolean; count: number }> = [];
  let cell = 0;

  const onEnd = (element: Element, handler: () => void) => {
    if (VOID.has(element.tagName)) return;
    try {
      element.onEndTag(handler);
    } catch {
      // An element that cannot have an end tag: nothing to close.
    }
  };

  const element = (el: Element) => {
    const tag = el.tagName.toLowerCase();
    if (SKIPPED.has(tag)) {
      skipDepth++;
      onEnd(el, () => {
        skipDepth = Math.max(0, skipDepth - 1);
      });
      return;
    }
    if (skipDepth > 0) return;
    if (tag === "title" && title === null && titleBuffer === null) {
      titleBuffer = "";
      onEnd(el, () => {
        title =
          decodeEntities(titleBuffer ?? "")
            .replace(/\s+/g, " ")
            .trim() || null;
        titleBuffer = null;
      });
      return;
    }
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      out.breakLine(2);
      out.prefix(`${"#".repeat(Number(heading[1]))} `);
      onEnd(el, () => out.breakLine(2));
      return;
    }
    if (tag === "br") {
      out.lineBreak();
      return;
    }
    const list = tag === "ul" || tag === "ol";
    if (tag === "pre") preDepth++;
    if (tag === "tr") cell = 0;
    if (tag === "td" || tag === "th") {
      if (cell++ > 0) out.append(" | ", false);
    } else if (tag === "li") {
      const current = lists.at(-1);
      const marker = current?.ordered ? `${++current.count}. ` : "- ";
      out.breakLine(1);
      out.prefix(`${"  ".repeat(Math.max(0, lists.length - 1))}${marker}`);
    } else if (list && lists.length > 0) {
      out.breakLine(1); // a nested list stays with its item
    } else if (PARAGRAPH.has(tag)) {
      out.breakLine(2);
    } else if (LINE.has(tag)) {
      out.breakLine(1);
    }
    if (list) lists.push({ ordered: tag === "ol", count: 0 });
    const href = tag === "a" ? (el.getAttribute("href")?.trim() ?? "") : "";
    const link = /^https?:\/\//i.test(href) ? { href, from: out.parts.length } : null;
    // One end-tag handler per element: a second registration would replace the first.
    onEnd(el, () => {
      if (link) closeLink(link);
      if (tag === "pre") preDepth = Math.max(0, preDepth - 1);
      if (list) lists.pop();
      if (list && lists.length > 0) out.breakLine(1);
      else if (PARAGRAPH.has(tag)) out.breakLine(2);
      else if (LINE.has(tag) || tag === "li") out.breakLine(1);
    });
  };

  const closeLink = (link: { href: string; from: number }) => {
    const text = out.parts.slice(link.from).join("").trim();
    if (text !== "" && text !== link.href) out.append(` (${link.href})`, false);
  };

  const flush = () => {
    if (titleBuffer !== null) titleBuffer += pending;
    else out.append(decodeEntities(pending), preDepth > 0);
    pending = "";
  };

  const rewriter = new HTMLRewriter().on("*", { element }).onDocument({
    text(chunk) {
      if (skipDepth > 0) return;
      pending += chunk.text;
      if (chunk.lastInTextNode) flush();
    },
  });
  await rewriter
    .transform(new Response(html, { headers: { "content-type": "text/html" } }))
    .arrayBuffer();
  if (pending !== "") flush();
  if (title === null && titleBuffer !== null) {
    title = decodeEntities(titleBuffer).replace(/\s+/g, " ").trim() || null;
  }
  return { title, text: out.toString() };
}
