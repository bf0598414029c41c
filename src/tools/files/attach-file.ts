/**
 * `attach_file`: hands a workspace file to the person as a result of the task. Their A2A client
 * receives it as an artifact with a file part (task/runtime/file-artifact.ts): the bytes inline up
 * to 64 KiB, else a link to the files API that their own credentials open. The file as it is when
 * attached; attaching it again after a change replaces the artifact. Output: one line naming the
 * artifact.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { mediaTypeOf } from "../../workspace/media-type.ts";
import { defineTool } from "../input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    path: z.string().min(1, "give a file path").describe("Relative path, e.g. RELEASE_NOTES.md"),
    description: z
      .string()
      .max(500)
      .optional()
      .describe("One line saying what the file is, shown to the person with it"),
  }),
);

/** The attach_file tool. */
export const attachFileTool = defineTool({
  name: "attach_file",
  domain: "workspace",
  description:
    "Hand a file of the workspace to the person as a result of this task: their client receives it as a file to keep (an A2A artifact). Attach the files the task was asked to produce (a report, release notes, code) once they are final; attach a file again after changing it. Files you only work with need no attaching.",
  input: toolInput,
  async run({ path, description }, context) {
    if (!context.attach)
      return { content: "attach_file: this task has no client to hand files to", isError: true };
    const file = await context.workspace.download(path);
    if (!file.ok) return { content: file.error, isError: true };
    const { entry, bytes } = file.value;
    const attached = context.attach({
      path: entry.path,
      bytes,
      mediaType: mediaTypeOf(entry.path),
      ...(description ? { description } : {}),
    });
    if (!attached.ok) return { content: attached.error, isError: true };
    const how = attached.inline ? "with its bytes" : "as a link to download it";
    return {
      content: `Attached ${entry.path} (${entry.size} bytes) as artifact ${attached.artifactId}: the person receives it ${how}.`,
    };
  },
});
