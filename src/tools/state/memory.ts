/**
 * Memory tools on the agent's CONTEXT.md: `memory_read` returns the agent's shared memory
 * (`agents/<agent>/shared/CONTEXT.md`, read-only here) and the caller's own
 * (`agents/<agent>/users/<owner>/memory/CONTEXT.md`, kept by the agent's workspace object for the
 * owner, see workspace/files/memory-file.ts); `memory_write` appends to or replaces the caller's
 * own. Both are also loaded into the system prompt at the start of every turn.
 */
import { z } from "zod";
import { MEMORY_MAX_CHARS } from "../../store/shared-memory.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool, inputlessTool, withValue } from "../input.ts";

export const memoryReadTool = inputlessTool(
  "memory_read",
  "memory",
  "Read your memory (CONTEXT.md): the agent's shared notes and the notes kept for this user across sessions. It is also in your system prompt; read it again after you changed it.",
  async (context) => {
    const [shared, user] = await Promise.all([context.memory.shared(), context.memory.user()]);
    return {
      content: [
        "# Shared memory (read-only)",
        shared?.trim() || "(empty)",
        "",
        "# Your memory for this user",
        user?.trim() || "(empty)",
      ].join("\n"),
    };
  },
  true,
);

const writeInput = lazy(() =>
  z.strictObject({
    content: z
      .string()
      .min(1, "content must not be empty")
      .max(MEMORY_MAX_CHARS)
      .describe("The note, markdown."),
    mode: z
      .enum(["append", "replace"])
      .default("append")
      .describe("append (default) adds the note; replace rewrites the whole file."),
  }),
);

export const memoryWriteTool = defineTool({
  name: "memory_write",
  domain: "memory",
  description:
    "Save something worth remembering across sessions for this user (preferences, facts about their project, agreed conventions) to CONTEXT.md. mode 'append' (default) adds a note; 'replace' rewrites the whole file. Keep it short; leave out transient details.",
  input: writeInput,
  run: async (input, context) =>
    withValue(await context.memory.write(input.content, input.mode), (written) => ({
      content: `Memory ${input.mode === "append" ? "updated" : "replaced"} (${written.chars} characters).`,
    })),
});
