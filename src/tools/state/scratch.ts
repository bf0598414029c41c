/**
 * The scratchpad (domain `scratchpad`): files shared by the tasks of one conversation and every
 * sub-agent they start, and by no other task. `scratch_write` (replace or append), `scratch_read`
 * (in pages), `scratch_list`. Stored in R2 under `scratch/<owner>/<scratchId>/`; paths are
 * confined like workspace paths. Sub-agents hand findings to each other here instead of through
 * long prompts, and the next task of the conversation finds them.
 */
import { z } from "zod";
import type { ToolContext, ToolResult } from "../../loop/contracts.ts";
import { KeyError, scratchKey, scratchPrefix } from "../../store/r2-keys.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool, maxCharsField } from "../input.ts";

/** Largest scratchpad file (UTF-8 bytes) and most files per scratchpad. */
export const SCRATCH_MAX_BYTES = 262_144;
export const SCRATCH_MAX_FILES = 200;
/** Default and largest page of `scratch_read`. */
export const SCRATCH_READ_CHARS = 8_000;
export const SCRATCH_READ_MAX_CHARS = 9_500;

const encoder = new TextEncoder();

function keyFor(context: ToolContext, path: string): { key: string } | { error: ToolResult } {
  try {
    return { key: scratchKey(context.owner, context.scratch.scratchId, path) };
  } catch (error) {
    const reason = error instanceof KeyError ? error.message : "invalid path";
    return {
      error: {
        content: `${reason}; use a relative path such as findings/sources.md`,
        isError: true,
      },
    };
  }
}

/** Keyed by owner too: a caller who names another user's scratchpad reaches only its own files. */
const prefixOf = (context: ToolContext) => scratchPrefix(context.owner, context.scratch.scratchId);

async function listKeys(context: ToolContext): Promise<R2Object[]> {
  const objects: R2Object[] = [];
  let cursor: string | undefined;
  do {
    const page = await context.scratch.bucket.list({
      prefix: prefixOf(context),
      cursor,
      limit: 1000,
      include: ["customMetadata"],
    });
    objects.push(...page.objects);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor && objects.length < SCRATCH_MAX_FILES + 1);
  return objects;
}

const writeInput = lazy(() =>
  z.strictObject({
    path: z.string().min(1, "is required").max(512),
    content: z.string(),
    mode: z.enum(["replace", "append"]).default("replace"),
  }),
);

/** `scratch_write`. */
export const scratchWriteTool = defineTool({
  name: "scratch_write",
  domain: "scratchpad",
  description:
    "Write a file in the scratchpad shared with the other agents and later tasks of this conversation (mode replace, the default, or append). Use it for findings, sources and analysis another agent will build on.",
  input: writeInput,
  async run(input, context) {
    const target = keyFor(context, input.path);
    if ("error" in target) return target.error;
    const existing = await context.scratch.bucket.get(target.key);
    if (!existing && (await listKeys(context)).length >= SCRATCH_MAX_FILES) {
      return {
        content: `The scratchpad is full (${SCRATCH_MAX_FILES} files); append to an existing file.`,
        isError: true,
      };
    }
    const before = input.mode === "append" && existing ? await existing.text() : "";
    const text = before
      ? `${before}${before.endsWith("\n") ? "" : "\n"}${input.content}`
      : input.content;
    const bytes = encoder.encode(text).byteLength;
    if (bytes > SCRATCH_MAX_BYTES) {
      return {
        content: `The file would be ${bytes} bytes; the limit is ${SCRATCH_MAX_BYTES}. Split it into several files.`,
        isError: true,
      };
    }
    await context.scratch.bucket.put(target.key, text, {
      httpMetadata: { contentType: "text/plain; charset=utf-8" },
      customMetadata: { agent: context.agent, task: context.taskId },
    });
    const verb =
      input.mode === "append" && existing ? "Appended to" : existing ? "Replaced" : "Created";
    return { content: `${verb} scratch/${input.path} (${bytes} bytes).` };
  },
});

const readInput = lazy(() =>
  z.strictObject({
    path: z.string().min(1, "is required").max(512),
    offset: z.number().int().min(0).default(0),
    max_chars: maxCharsField(SCRATCH_READ_CHARS, SCRATCH_READ_MAX_CHARS),
  }),
);

/** `scratch_read`. */
export const scratchReadTool = defineTool({
  name: "scratch_read",
  domain: "scratchpad",
  readOnly: true,
  description: `Read a scratchpad file, in pages of max_chars characters (default ${SCRATCH_READ_CHARS}, at most ${SCRATCH_READ_MAX_CHARS}) from offset.`,
  input: readInput,
  async run(input, context) {
    const target = keyFor(context, input.path);
    if ("error" in target) return target.error;
    const object = await context.scratch.bucket.get(target.key);
    if (!object)
      return {
        content: `scratch/${input.path} does not exist; scratch_list shows what does.`,
        isError: true,
      };
    const text = await object.text();
    const { offset } = input;
    const size = Math.min(input.max_chars ?? SCRATCH_READ_CHARS, SCRATCH_READ_MAX_CHARS);
    const page = text.slice(offset, offset + size);
    const end = offset + page.length;
    const more =
      end < text.length
        ? `\n\n[more: ${text.length - end} characters left; read again with offset ${end}]`
        : "";
    return {
      content: `scratch/${input.path}, characters ${offset}-${end} of ${text.length}\n\n${page}${more}`,
    };
  },
});

/** `scratch_list`. */
export const scratchListTool = defineTool({
  name: "scratch_list",
  domain: "scratchpad",
  readOnly: true,
  description: "List the scratchpad's files with their sizes and the agent that last wrote each.",
  input: () => z.strictObject({}),
  async run(_input, context) {
    const prefix = prefixOf(context);
    const objects = await listKeys(context);
    if (objects.length === 0) return { content: "The scratchpad is empty." };
    const lines = objects.map((o) => {
      const by = o.customMetadata?.agent;
      return `- ${o.key.slice(prefix.length)} (${o.size} bytes${by ? `, by ${by}` : ""})`;
    });
    return {
      content: `Scratchpad (${objects.length} file${objects.length === 1 ? "" : "s"}):\n${lines.join("\n")}`,
    };
  },
});
