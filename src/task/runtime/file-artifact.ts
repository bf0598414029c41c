/**
 * A workspace file the agent attaches as a result (tools/files/attach-file.ts), published as one
 * of the task's artifacts: `file:<path>`, named by its path, with one file part: the bytes inline
 * (`raw`) up to {@link ARTIFACT_INLINE_BYTES}, else a link (`url`) to the file on the files API,
 * which the caller's own credentials open (an anonymous caller's link names its conversation).
 * The link's base is the task's `metadata.files`, the files route the task was created under;
 * else PUBLIC_URL; without either, a file too large to inline cannot be attached. Attached again,
 * the artifact is replaced by the file as it is then.
 */
import { isAnonymousOwner } from "../../auth/anonymous.ts";
import type { Config } from "../../config/config.ts";
import type { AttachedFile, AttachOutcome } from "../../loop/contracts.ts";
import { base64Of } from "../../platform/base64.ts";
import { filesUrl } from "../../protocol/files-route.ts";
import type { Artifact, Part } from "../../protocol/wire.ts";
import type { EventLog } from "../store/event-log.ts";
import { lineageOf } from "../store/lineage.ts";
import type { TaskRecord, TaskStore } from "../store/task-store.ts";
import type { WriteUnit } from "../store/write-unit.ts";
import { emitArtifact } from "./answer-artifact.ts";

/** Largest file sent inline in its artifact (64 KiB); larger ones are linked. */
export const ARTIFACT_INLINE_BYTES = 65_536;

/** The id prefix of an attached file's artifact (`file:notes/report.md`). */
export const FILE_ARTIFACT_PREFIX = "file:";

/**
 * The files route of a task's workspace (its root agent's, for its owner) under `base`: what a
 * task keeps as `metadata.files`; an anonymous owner's names the conversation.
 */
export function filesLink(
  base: string,
  task: { rootAgent: string; owner: string; contextId: string },
): string {
  const anonymous = isAnonymousOwner(task.owner);
  return filesUrl(base, task.rootAgent, anonymous ? { contextId: task.contextId } : {});
}

/** The link to `path` on the task's files route, or null when the task knows no public base. */
function linkTo(record: TaskRecord, config: Config, path: string): string | null {
  const kept = record.metadata.files;
  const listing =
    typeof kept === "string"
      ? kept
      : config.publicUrl
        ? filesLink(config.publicUrl, { ...record, rootAgent: lineageOf(record).rootAgent })
        : null;
  if (listing === null) return null;
  const url = new URL(listing);
  url.pathname += `/${path.split("/").map(encodeURIComponent).join("/")}`;
  return url.href;
}

/** Publishes `file` as the task's artifact `file:<path>` (see the module's header). */
export function attachFile(
  rt: { store: TaskStore; log: EventLog; unit: WriteUnit },
  file: AttachedFile,
  config: Config,
): AttachOutcome {
  const record = rt.store.record;
  if (!record) return { ok: false, error: "the task is gone" };
  const size = file.bytes.byteLength;
  const inline = size <= ARTIFACT_INLINE_BYTES;
  const link = inline ? null : linkTo(record, config, file.path);
  if (!inline && link === null)
    return {
      ok: false,
      error: `${file.path} is ${size} bytes, more than the ${ARTIFACT_INLINE_BYTES} an artifact carries inline, and this task knows no public URL to link it from (PUBLIC_URL)`,
    };
  const filename = file.path.split("/").pop() ?? file.path;
  const part: Part = {
    ...(link === null ? { raw: base64Of(file.bytes) } : { url: link }),
    filename,
    mediaType: file.mediaType,
  };
  const artifactId = `${FILE_ARTIFACT_PREFIX}${file.path}`;
  const artifact: Artifact = {
    artifactId,
    name: file.path,
    ...(file.description ? { description: file.description } : {}),
    parts: [part],
    metadata: { path: file.path, size },
  };
  emitArtifact(rt, artifact, { lastChunk: true });
  return { ok: true, artifactId, inline };
}
