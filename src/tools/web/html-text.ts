/**
 * HTML to readable text for web_fetch: a linear, dependency-free scanner (no DOM). Drops script,
 * style, noscript, svg, template, iframe, object, canvas and math content, comments and doctype;
 * takes <title> apart (text directly in <head> cannot exist: HTML parsing moves it into <body>).
 * Keeps structure as line breaks: blank lines around paragraphs, headings (as "#" marks), tables
 * and lists; "- " or "1. " per list item; " | " between table cells. Decodes entities, collapses
 * whitespace (except inside <pre>), and keeps link text followed by the URL in parentheses when
 * the href is an absolute http(s) URL. Quote-aware tag ends; every scan moves forward, so hostile
 * markup (unclosed quotes, comments, tags) stays linear in the input size: the characters each scan
 * examines are counted ({@link ScanWork}), so a test can hold the work per input character
 * constant without a clock (bench/html-text.ts times it).
 * Why not HTMLRewriter: it works, but each JS callback costs ~10 us; a dense 2 MB page took ~7 s.
 */

/** Elements whose content is raw text up to their end tag, dropped. */
const RAW = new Set(["script", "style", "noscript", "iframe", "noembed", "noframes", "xmp"]);
/** Elements whose markup content is dropped (nesting of the same name counted). */
const DROPPED = new Set(["svg", "math", "template", "object", "canvas"]);
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

/** Named character references decoded (name:code point); others are left as written. */
const NAMED = new Map(
  "amp:38 lt:60 gt:62 quot:34 apos:39 nbsp:160 copy:169 reg:174 trade:8482 hellip:8230 mdash:8212 ndash:8211 lsquo:8216 rsquo:8217 ldquo:8220 rdquo:8221 sbquo:8218 bdquo:8222 laquo:171 raquo:187 lsaquo:8249 rsaquo:8250 bull:8226 middot:183 deg:176 plusmn:177 times:215 divide:247 frac12:189 frac14:188 frac34:190 euro:8364 pound:163 yen:165 cent:162 sect:167 para:182 dagger:8224 larr:8592 rarr:8594 uarr:8593 darr:8595 harr:8596 le:8804 ge:8805 ne:8800 minus:8722 ensp:8194 emsp:8195 thinsp:8201 shy:173 zwj:8205 zwnj:8204"
    .split(" ")
    .map((pair) => pair.split(":"))
    .map(([name = "", code = "0"]): [string, string] => [name, String.fromCodePoint(Number(code))]),
);
const LEGACY = new Set(["amp", "lt", "gt", "quot", "nbsp", "copy", "reg"]);

/** The work of one conversion: characters examined by its scans (a character may count twice). */
export interface ScanWork {
  chars: number;
}

/** Where `needle` is in `html` from `from` (-1: none), counting the characters passed over. */
function find(html: string, needle: string, from: number, work: ScanWork): number {
  const found = html.indexOf(needle, from);
  work.chars += (found < 0 ? html.length : found + needle.length) - from;
  return found;
}

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

/** Where the `>` ending a tag is, from `from` (after the name), quote-aware; -1 if none. */
function tagEnd(html: string, from: number, unclosed: Set<string>, work: ScanWork): number {
  let at = from;
  let gt = find(html, ">", at, work);
  while (gt >= 0) {
    let open = -1;
    let i = at;
    for (; i < gt && open < 0; i++) {
      const char = html[i];
      if ((char === '"' || char === "'") && !unclosed.has(char) && afterEquals(html, i, at, work)) {
        open = i;
      }
    }
    work.chars += i - at;
    if (open < 0) return gt;
    const mark = html[open] ?? "";
    const close = find(html, mark, open + 1, work);
    if (close < 0) {
      unclosed.add(mark); // no later quote of this kind: never look for one again
      return gt;
    }
    at = close + 1;
    if (at > gt) gt = find(html, ">", at, work);
  }
  return -1;
}

/** Whether the quote at `index` opens an attribute value (`=` before it, spaces allowed). */
function afterEquals(html: string, index: number, floor: number, work: ScanWork): boolean {
  let i = index - 1;
  while (i >= floor && /\s/.test(html[i] ?? "")) i--;
  work.chars += index - 1 - i;
  return i >= floor && html[i] === "=";
}

/** Where the content of a dropped element ends (after its end tag), counting nesting. */
function skipElement(
  html: string,
  name: string,
  from: number,
  raw: boolean,
  work: ScanWork,
): number {
  const tags = new RegExp(raw ? `</${name}[\\s/>]` : `<(/?)${name}[\\s/>]`, "gi");
  tags.lastIndex = from;
  let depth = 1;
  for (let match = tags.exec(html); match; match = tags.exec(html)) {
    depth += raw || match[1] === "/" ? -1 : 1;
    if (depth === 0) {
      work.chars += match.index - from;
      const gt = find(html, ">", match.index, work);
      return gt < 0 ? html.length : gt + 1;
    }
  }
  work.chars += html.length - from;
  return html.length;
}

/** The text of a document as its markup is read: breaks, list markers, table cells, links, title. */
class Renderer {
  readonly out = new TextBuilder();
  /** The conversion's work, which the link and attribute reads add to. */
  readonly #work: ScanWork;
  title: string | null = null;
  readonly #lists: Array<{ ordered: boolean; count: number }> = [];
  #link: { href: string; from: number } | null = null;
  #preDepth = 0;
  #cell = 0;

  constructor(work: ScanWork) {
    this.#work = work;
  }

  /** Text as it stands between tags (whitespace collapsed unless inside <pre>). */
  text(raw: string): void {
    this.out.append(raw, this.#preDepth > 0);
  }

  /** The first <title>'s text (`raw`: its content up to its end tag). */
  setTitle(raw: string): void {
    const text = raw.replace(/<\/title[^>]*>?$/i, "");
    this.title ??= decodeEntities(text).replace(/\s+/g, " ").trim() || null;
  }

  /** A start tag, with the markup of its attributes. */
  start(tag: string, attributes: string): void {
    this.#breakBefore(tag);
    if (tag === "ul" || tag === "ol") this.#lists.push({ ordered: tag === "ol", count: 0 });
    if (tag === "tr") this.#cell = 0;
    if (tag === "pre") this.#preDepth++;
    if (tag === "a") {
      this.closeLink();
      this.#work.chars += attributes.length;
      const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(attributes);
      const url = decodeEntities(href?.[1] ?? href?.[2] ?? href?.[3] ?? "").trim();
      if (/^https?:\/\/\S+$/i.test(url)) this.#link = { href: url, from: this.out.parts.length };
    }
  }

  /** An end tag. */
  end(tag: string): void {
    const out = this.out;
    if (tag === "a") this.closeLink();
    if (tag === "pre") this.#preDepth = Math.max(0, this.#preDepth - 1);
    if (/^h[1-6]$/.test(tag)) out.breakLine(2);
    else if ((tag === "ul" || tag === "ol") && this.#lists.pop() && this.#lists.length > 0)
      out.breakLine(1);
    else if (PARAGRAPH.has(tag)) out.breakLine(2);
    else if (LINE.has(tag) || tag === "li") out.breakLine(1);
  }

  /** Ends the open link: its URL after its text, unless the text is the URL. */
  closeLink(): void {
    const link = this.#link;
    if (!link) return;
    const text = this.out.parts.slice(link.from).join("").trim();
    this.#work.chars += text.length;
    if (text !== "" && text !== link.href) this.out.append(` (${link.href})`, false);
    this.#link = null;
  }

  /** The break (or heading mark, list marker, cell separator) a start tag puts before its text. */
  #breakBefore(tag: string): void {
    const out = this.out;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      out.breakLine(2);
      out.prefix(`${"#".repeat(Number(heading[1]))} `);
    } else if (tag === "br") {
      out.lineBreak();
    } else if (tag === "td" || tag === "th") {
      if (this.#cell++ > 0) out.append(" | ", false);
    } else if (tag === "li") {
      const current = this.#lists.at(-1);
      const marker = current?.ordered ? `${++current.count}. ` : "- ";
      out.breakLine(1);
      out.prefix(`${"  ".repeat(Math.max(0, this.#lists.length - 1))}${marker}`);
    } else if ((tag === "ul" || tag === "ol") && this.#lists.length > 0) {
      out.breakLine(1); // a nested list stays with its item
    } else if (PARAGRAPH.has(tag)) {
      out.breakLine(2);
    } else if (LINE.has(tag)) {
      out.breakLine(1);
    }
  }
}

/** A tag's name, read at a `<` (sticky: set `lastIndex` first; read synchronously only). */
const TAG_NAME = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/y;

/**
 * Converts an HTML document to readable text and its <title> (null when there is none), adding
 * the characters its scans examined to `work` when given.
 */
export function htmlToText(
  html: string,
  work: ScanWork = { chars: 0 },
): { title: string | null; text: string } {
  const render = new Renderer(work);
  const unclosed = new Set<string>();
  let at = 0;
  while (at < html.length) {
    const lt = find(html, "<", at, work);
    if (lt < 0 || lt > at) render.text(decodeEntities(html.slice(at, lt < 0 ? undefined : lt)));
    if (lt < 0) break;
    at = readMarkup(html, lt, { unclosed, render, work });
  }
  render.closeLink();
  return { title: render.title, text: render.out.toString() };
}

/**
 * Reads the markup at `lt` (a comment, a tag, or a `<` that opens none) into `render`; returns
 * where reading goes on (the input's length when nothing more is read).
 */
function readMarkup(
  html: string,
  lt: number,
  { unclosed, render, work }: { unclosed: Set<string>; render: Renderer; work: ScanWork },
): number {
  if (html.startsWith("<!--", lt)) {
    const close = find(html, "-->", lt + 4, work);
    return close < 0 ? html.length : close + 3;
  }
  TAG_NAME.lastIndex = lt;
  const match = TAG_NAME.exec(html);
  if (!match) {
    const bang = html[lt + 1] === "!" || html[lt + 1] === "?" || html[lt + 1] === "/";
    if (!bang) render.text("<");
    const gt = bang ? find(html, ">", lt, work) : lt;
    return gt < 0 ? html.length : gt + 1;
  }
  const nameEnd = TAG_NAME.lastIndex;
  work.chars += match[0].length;
  const close = tagEnd(html, nameEnd, unclosed, work);
  if (close < 0) return html.length; // an unfinished tag at the end: dropped
  const tag = (match[2] ?? "").toLowerCase();
  const after = close + 1;
  if (match[1] === "/") render.end(tag);
  else if (RAW.has(tag)) return skipElement(html, tag, after, true, work);
  else if (DROPPED.has(tag)) {
    const selfClosing = html.slice(nameEnd, close).trimEnd().endsWith("/");
    return selfClosing ? after : skipElement(html, tag, after, false, work);
  } else if (tag === "title") {
    const stop = skipElement(html, "title", after, true, work);
    render.setTitle(html.slice(after, stop));
    return stop;
  } else render.start(tag, html.slice(nameEnd, close));
  return after;
}
