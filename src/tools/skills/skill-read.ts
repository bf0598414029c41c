/**
 * Tool `skill_read` (domain `skills`): reads one file beside a skill's SKILL.md (a reference, a
 * template, a script to adapt), by its path in the skill's folder, in pages (`offset`). A file
 * that is not text is named with its size, not read.
 */
import { z } from "zod";
import { defineTool } from "../input.ts";
import { findSkill, moreLine, pageOf } from "./skill-pages.ts";

/** The `skill_read` tool. */
export const skillReadTool = defineTool({
  name: "skill_read",
  domain: "skills",
  readOnly: true,
  description:
    "Read a file of one of your skills (the paths skill_load lists, relative to the skill's folder), " +
    "when its instructions point you to it.",
  input: () =>
    z.strictObject({
      name: z.string().min(1).max(64).describe("The skill's name."),
      path: z.string().min(1).max(256).describe("The file's path in the skill's folder."),
      offset: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe("Character offset to read from (for long files; default 0)."),
    }),
  async run({ name, path, offset = 0 }, context) {
    const found = findSkill(context, name);
    if (!found.ok) return found.result;
    const relative = path.replace(/^\.\//, "");
    const file = found.skill.files.find((f) => f.path === relative);
    if (!file) {
      const paths = found.skill.files.map((f) => f.path);
      return {
        content: `No file "${path}" in skill ${name}. Its files: ${paths.slice(0, 50).join(", ") || "none"}${paths.length > 50 ? ", ..." : ""}.`,
        isError: true,
      };
    }
    if (file.text === null)
      return {
        content: `${file.path} of skill ${name} is not text (${file.bytes} bytes): it cannot be read as text.`,
        isError: true,
      };
    if (offset > 0 && offset >= file.text.length)
      return {
        content: `offset ${offset} is past the end of ${file.path} (${file.text.length} characters).`,
        isError: true,
      };
    const header = `${name}/${file.path}:`;
    const { page, next } = pageOf(context, file.text, offset, header.length + 1);
    return {
      content: [
        header,
        page,
        ...(next === null ? [] : [moreLine("skill_read", { name, path }, next, file.text.length)]),
      ].join("\n"),
    };
  },
});
