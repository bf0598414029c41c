/**
 * Tool `skill_load` (domain `skills`): loads one of the agent's Agent Skills (the system prompt
 * lists each by name and description): its SKILL.md instructions, wrapped in `<skill_content>`,
 * with the files beside it listed and not read (skill_read reads one). Long instructions come in
 * pages (`offset`). Offered only to an agent that has skills (tools/catalog.ts).
 */
import { z } from "zod";
import { defineTool } from "../input.ts";
import { findSkill, moreLine, pageOf } from "./skill-pages.ts";

/** Files a load lists; the rest are counted. */
const LISTED_FILES = 100;

/** The `skill_load` tool. */
export const skillLoadTool = defineTool({
  name: "skill_load",
  domain: "skills",
  readOnly: true,
  description:
    "Load one of your skills (listed in your instructions under Your skills) when a task matches its " +
    "description: returns its full instructions and the files it has (read one with skill_read). " +
    "Load a skill once per task; follow its instructions.",
  input: () =>
    z.strictObject({
      name: z.string().min(1).max(64).describe("The skill's name, as listed."),
      offset: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe("Character offset of the instructions to read from (for long ones; default 0)."),
    }),
  async run({ name, offset = 0 }, context) {
    const found = findSkill(context, name);
    if (!found.ok) return found.result;
    const { skill } = found;
    if (offset > 0 && offset >= skill.body.length)
      return {
        content: `offset ${offset} is past the end of ${name}'s instructions (${skill.body.length} characters).`,
        isError: true,
      };
    const files = skill.files.slice(0, LISTED_FILES).map((f) => `<file>${f.path}</file>`);
    const more = skill.files.length - files.length;
    const listing =
      files.length === 0
        ? ["This skill has no other files."]
        : [
            "Files of this skill (paths relative to its folder; read one with skill_read):",
            "<skill_resources>",
            ...files,
            ...(more > 0 ? [`<!-- and ${more} more -->`] : []),
            "</skill_resources>",
          ];
    const open = `<skill_content name="${skill.name}">`;
    const close = "</skill_content>";
    const frame = [open, "", ...listing, close].join("\n").length + 2;
    const { page, next } = pageOf(context, skill.body, offset, frame);
    return {
      content: [
        open,
        page,
        ...(next === null ? [] : [moreLine("skill_load", { name }, next, skill.body.length)]),
        "",
        ...listing,
        close,
      ].join("\n"),
    };
  },
});
