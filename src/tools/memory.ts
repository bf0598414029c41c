/**
 * Memory tools on the agent's CONTEXT.md: `memory_read` returns the agent's shared memory
 * (`agents/<agent>/shared/CONTEXT.md`, read-only here) and the caller's own
 * (`agents/<agent>/users/<owner>/memory/CONTEXT.md`); `memory_write` appends to or replaces the
 * caller's own. Both are also loaded into the system prompt at the start of every turn.
 */
import { z } from "zod";
import type { Tool, ToolContext } from "../loop/contracts.ts";
import { sharedKey, userKey } from "../store/r2-keys.ts";
import { defineTool } from "./input.ts";

/** Largest CONTEXT.md kept. */
export const MEMORY_MAX_CHARS = 32_000;

/** R2 keys of the two CONTEXT.md files. */
export const memoryKeys = (agent: string, owner: string) => ({
  shared: sharedKey(agent, "CONTEXT.md"),
  user: userKey(agent, owner, "memory/CONTEXT.md"),
});

/** Both memory files' text (null when absent). */
export async function readMemory(
  files: R2Bucket,
  agent: string,
  owner: string,
): Promise<{ shared: string | null; user: string | null }> {
  const keys = memoryKeys(agent, owner);
  const [shared, user] = await Promise.all([files.get(keys.shared), files.get(keys.user)]);
  return { shared: shared ? await shared.text() : null, user: user ? await user.text() : null };
}

export const memoryReadTool: Tool = {
  name: "memory_read",
  domain: "memory",
  description:
    "Read your memory (CONTEXT.md): the agent's shared notes and the notes kept for this user across sessions. It is also in your system prompt; read it again after you changed it.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  async run(_input, context: ToolContext) {
    const memory = await readMemory(context.files, context.agent, context.owner);
    return {
      content: [
        "# Shared memory (read-only)",
        memory.shared?.trim() || "(empty)",
        "",
        "# Your memory for this user",
        memory.user?.trim() || "(empty)",
      ].join("\n"),
    };
  },
};

const WriteInput = z.strictObject({
  content: z.string().min(1, "content must not be empty").max(MEMORY_MAX_CHARS),
  mode: z.enum(["append", "replace"]).default("append"),
});

export const memoryWriteTool = defineTool({
  name: "memory_write",
  domain: "memory",
  description:
    "Save something worth remembering across sessions for this user (preferences, facts about their project, agreed conventions) to CONTEXT.md. mode 'append' (default) adds a note; 'replace' rewrites the whole file. Keep it short; leave out transient details.",
  input: WriteInput,
  properties: {
    content: { type: "string", description: "The note, markdown." },
    mode: { type: "string", enum: ["append", "replace"] },
  },
  required: ["content"],
  async run(input, context) {
    const key = memoryKeys(context.agent, context.owner).user;
    const before =
      input.mode === "append" ? ((await (await context.files.get(key))?.text()) ?? "") : "";
    const next = before
      ? `${before.trimEnd()}\n\n${input.content.trim()}\n`
      : `${input.content.trim()}\n`;
    if (next.length > MEMORY_MAX_CHARS) {
      return {
        content: `CONTEXT.md would grow to ${next.length} characters (limit ${MEMORY_MAX_CHARS}). Rewrite it shorter with mode "replace".`,
        isError: true,
      };
    }
    await context.files.put(key, next, {
      httpMetadata: { contentType: "text/markdown; charset=utf-8" },
    });
    return {
      content: `Memory ${input.mode === "append" ? "updated" : "replaced"} (${next.length} characters).`,
    };
  },
});
