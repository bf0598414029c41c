/**
 * The system prompt's section on the agent's Agent Skills: each skill's name and description (the
 * format's catalog, ~100 tokens a skill) and how to load one, never a skill's instructions (the
 * model loads those with skill_load when a task matches). Empty when the agent has no skills or
 * no skill_load. Pure: no I/O.
 */

/** A skill as the prompt lists it. */
export interface ListedSkill {
  name: string;
  description: string;
}

const xmlText = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The section's lines (a blank line first), or none. */
export function skillsSection(skills: readonly ListedSkill[], tools: readonly string[]): string[] {
  if (skills.length === 0 || !tools.includes("skill_load")) return [];
  return [
    "",
    "## Your skills",
    "These skills hold instructions for specific tasks. When a task matches a skill's description, load it with skill_load (its name) before you start, and follow its instructions; read the files it lists with skill_read when its instructions point you to them.",
    "<available_skills>",
    ...skills.map(
      (s) =>
        `<skill><name>${xmlText(s.name)}</name><description>${xmlText(s.description)}</description></skill>`,
    ),
    "</available_skills>",
  ];
}
