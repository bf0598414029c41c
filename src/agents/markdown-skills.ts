/**
 * The markdown side of an IDENTITY.md body: a small block tokenizer (headings, lines, paragraph
 * breaks; fenced code skipped), the first paragraph as plain text, and the A2A skills of the
 * card (a `## Skills` section, else the H2 sections; then the agent's Agent Skills; else one
 * skill for the agent). Pure.
 */

/** One A2A AgentSkill derived from the markdown body. */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
}

/** A heading (level 1-6), a raw text line (level 0), or null for a paragraph break. */
export type Block = { heading: number; text: string } | null;

export function tokenize(body: string): Block[] {
  const out: Block[] = [];
  let fence: string | null = null;
  for (const line of body.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (marker) {
      fence = marker;
      out.push(null);
      continue;
    }
    const heading = /^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(line);
    if (heading) out.push({ heading: heading[1]?.length ?? 1, text: plain(heading[2] ?? "") });
    else if (/^\s*$|^ {0,3}([-*_])( *\1){2,} *$|^\s*<!--.*-->\s*$/.test(line)) out.push(null);
    else out.push({ heading: 0, text: line });
  }
  return out;
}

/** Paragraphs (joined lines, plain text) in `blocks`; headings also end a paragraph. */
function paragraphs(blocks: Block[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  for (const block of [...blocks, null]) {
    if (block !== null && block.heading === 0) {
      current.push(block.text.replace(/^\s*(?:[-*+>]|\d+[.)])\s+/, ""));
    } else if (current.length > 0) {
      out.push(plain(current.join(" ")));
      current = [];
    }
  }
  return out.filter((p) => p !== "");
}

export function firstParagraph(blocks: Block[]): string {
  return paragraphs(blocks)[0] ?? "";
}

/** Blocks after `start` up to the next heading of level <= `level`. */
function sectionAt(blocks: Block[], start: number, level: number): Block[] {
  const end = blocks.findIndex(
    (b, i) => i > start && b !== null && b.heading > 0 && b.heading <= level,
  );
  return blocks.slice(start + 1, end < 0 ? blocks.length : end);
}

function skillsFromSection(section: Block[]): Array<[string, string]> {
  const h3s = section.flatMap((b, i) => (b?.heading === 3 ? [i] : []));
  if (h3s.length > 0) {
    return h3s.map((i) => {
      const name = section[i]?.text ?? "";
      return [name, paragraphs(sectionAt(section, i, 6)).join(" ") || name];
    });
  }
  const items: string[][] = [];
  let open = false;
  for (const block of section) {
    if (block === null || block.heading > 0) {
      open = false;
    } else if (/^[-*+]\s+/.test(block.text)) {
      items.push([block.text.replace(/^[-*+]\s+/, "")]);
      open = true;
    } else if (open || /^\s/.test(block.text)) {
      items.at(-1)?.push(block.text.trim().replace(/^[-*+]\s+/, ""));
    }
  }
  return items.flatMap((item) => {
    const match = /^(.+?)(?::\s+|\s+[—–-]\s+)(.+)$/.exec(plain(item.join(" ")));
    return match?.[1] && match[2] ? [[match[1], match[2]] as [string, string]] : [];
  });
}

/**
 * The card's skills: the body's (a `## Skills` section, else its H2 sections), then the agent's
 * Agent Skills (`folders`: name and description each); one skill for the agent itself when
 * neither gives any.
 */
export function extractSkills(
  blocks: Block[],
  agentName: string,
  agentDescription: string,
  tags: string[],
  starters: string[],
  folders: ReadonlyArray<{ name: string; description: string }> = [],
): AgentSkill[] {
  const h2s = blocks.flatMap((b, i) => (b?.heading === 2 ? [i] : []));
  const skillsAt = h2s.find((i) => blocks[i]?.text.toLowerCase() === "skills");
  let found = skillsAt === undefined ? [] : skillsFromSection(sectionAt(blocks, skillsAt, 2));
  if (found.length === 0) {
    found = h2s
      .filter((i) => i !== skillsAt)
      .map((i) => {
        const name = blocks[i]?.text ?? "";
        return [name, firstParagraph(sectionAt(blocks, i, 2)) || name];
      });
  }
  found = [...found, ...folders.map((f): [string, string] => [f.name, f.description])];
  if (found.length === 0) found = [[agentName, agentDescription]];
  const used = new Set<string>();
  return found.map(([name, description], index) => {
    const base = slug(name);
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
    used.add(id);
    return {
      id,
      name: clip(name, 200) || id,
      description: clip(description, 1000),
      // A2A requires a skill's tags; the SDK's card codec drops a skill whose list is empty.
      tags: tags.length > 0 ? [...tags] : [agentName],
      examples: index === 0 ? [...starters] : [],
    };
  });
}

/** Markdown inline syntax stripped: links, images, code, emphasis; whitespace collapsed. */
function plain(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/<(https?:\/\/[^>\s]+)>/g, "$1")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/\*(?=\S)(.+?)(?<=\S)\*/g, "$1")
    .replace(/(^|[^\w])_(?=\S)(.+?)(?<=\S)_(?!\w)/g, "$1$2")
    .replace(/~~(.+?)~~/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

export function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1).trimEnd()}…`;
}

/** A skill id from its name: kebab-case ASCII ("skill" when nothing is left). */
export function slug(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return base || "skill";
}
