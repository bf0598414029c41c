/**
 * What the skill tools share: finding one of the task's skills by name (an unknown name is a tool
 * error listing the skills there are), and a text in pages that fit a tool result (the
 * deployment's `MAX_TOOL_OUTPUT_CHARS` less the lines around the page), cut at a line end where
 * one is near, with the call that reads on.
 */
import type { SkillFolder } from "../../agents/skill-folders.ts";
import type { ToolContext, ToolResult } from "../../loop/contracts.ts";

/** Room left for the line that says how to read on. */
const MORE_CHARS = 200;
/** The smallest page, however little room the result leaves. */
const MIN_PAGE = 500;

/** The skill called `name` among the task's, or the error to return. */
export function findSkill(
  context: ToolContext,
  name: string,
): { ok: true; skill: SkillFolder } | { ok: false; result: ToolResult } {
  const skills = context.skills ?? [];
  const skill = skills.find((s) => s.name === name);
  if (skill) return { ok: true, skill };
  const names = skills.map((s) => s.name).join(", ") || "none";
  return {
    ok: false,
    result: { content: `No skill named "${name}". Your skills: ${names}.`, isError: true },
  };
}

/**
 * One page of `text` from character `offset`, in a result whose other lines take `frame`
 * characters: the page, and where the next starts (or null).
 */
export function pageOf(
  context: ToolContext,
  text: string,
  offset: number,
  frame: number,
): { page: string; next: number | null } {
  const size = Math.max(MIN_PAGE, context.config.maxToolOutputChars - frame - MORE_CHARS);
  if (offset + size >= text.length) return { page: text.slice(offset), next: null };
  const cut = text.lastIndexOf("\n", offset + size);
  const end = cut > offset + size / 2 ? cut + 1 : offset + size;
  return { page: text.slice(offset, end), next: end };
}

/** The line that says how to read the rest, from the call's `input` with the next offset. */
export function moreLine(
  tool: string,
  input: Record<string, unknown>,
  next: number,
  total: number,
) {
  return `[more: ${total - next} characters left; call ${tool} with ${JSON.stringify({ ...input, offset: next })} to read on]`;
}
