/**
 * Turns the parts of an A2A message into Messages API content blocks, and says which media types
 * the harness accepts (the card's input modes). Text and data parts become text; images and PDFs
 * go to the model as images and documents; other text files are inlined; a file saved in the
 * workspace is named with its path there. Pure: no I/O.
 */
import type { ContentBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { bytesOfBase64 } from "../../platform/base64.ts";
import { decodeUtf8 } from "../../platform/utf8.ts";
import type { Part } from "../../protocol/wire.ts";
import { workspaceFileOf } from "../../protocol/workspace-file.ts";

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
type ImageType = (typeof IMAGE_TYPES)[number];

/** Media types a message part may carry (advertised as the card's `defaultInputModes`). */
export const SUPPORTED_INPUT_MODES: readonly string[] = [
  "text/plain",
  "text/markdown",
  "application/json",
  ...IMAGE_TYPES,
  "application/pdf",
];

/** Media types the harness produces (the card's `defaultOutputModes`). */
export const SUPPORTED_OUTPUT_MODES: readonly string[] = ["text/plain", "text/markdown"];

const IMAGES: ReadonlySet<string> = new Set(IMAGE_TYPES);
const isImage = (t: string): t is ImageType => IMAGES.has(t);
const isTextual = (t: string) =>
  t.startsWith("text/") ||
  t === "application/json" ||
  t.endsWith("+json") ||
  t === "application/xml";

const baseType = (mediaType: string | undefined) =>
  (mediaType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

/** True when `range` (a media type, or a range such as `image/*` or any-type) covers `type`. */
function covers(range: string, type: string): boolean {
  const r = baseType(range);
  return r === "*/*" || r === type || (r.endsWith("/*") && type.startsWith(r.slice(0, -1)));
}

/**
 * The media type of the first file part an agent with these input modes cannot take, or null
 * when all are fine. An agent that reads `text/plain` reads every textual type (any `text/*`,
 * JSON, XML) as text.
 */
export function unsupportedMediaType(
  parts: readonly Part[],
  inputModes: readonly string[] = SUPPORTED_INPUT_MODES,
): string | null {
  const readsText = inputModes.some((mode) => covers(mode, "text/plain"));
  for (const part of parts) {
    if (part.raw === undefined && part.url === undefined) continue;
    const type = baseType(part.mediaType);
    if (type === "" && part.url !== undefined) continue; // a bare link is passed on as text
    const taken = inputModes.some((mode) => covers(mode, type)) || (readsText && isTextual(type));
    if (!taken) return type || "(none)";
  }
  return null;
}

/** True when a client accepting `accepted` output modes can read one of the agent's output modes. */
export function acceptsOurOutput(
  accepted: readonly string[] | undefined,
  outputModes: readonly string[] = SUPPORTED_OUTPUT_MODES,
): boolean {
  if (!accepted || accepted.length === 0) return true;
  return accepted.some((mode) => {
    const m = baseType(mode) === "text" ? "text/*" : mode;
    return outputModes.some((ours) => covers(m, baseType(ours)) || covers(ours, baseType(m)));
  });
}

function fileLabel(part: Part, type: string): string {
  return part.filename ? `${part.filename} (${type})` : type;
}

/** Data parts up to this many characters (compact) are shown indented, larger ones compact. */
export const PRETTY_DATA_CHARS = 8_000;

/**
 * A data part as JSON text, at most 4 times its compact size: indentation multiplies a deep
 * value's size (the edge bounds depth, see protocol/json-shape.ts), so only a small value whose
 * indented form stays within that is indented.
 */
export function dataText(data: unknown): string {
  const compact = JSON.stringify(data) ?? "null";
  if (compact.length > PRETTY_DATA_CHARS) return compact;
  const pretty = JSON.stringify(data, null, 2);
  return pretty.length <= 4 * compact.length ? pretty : compact;
}

/**
 * Content blocks for one message's parts, in order. Call {@link unsupportedMediaType} first. A
 * file part the harness saved in the workspace (task/message-files.ts) is introduced by a line
 * naming where it is; a text file's text follows it, as before it was saved.
 */
export function toUserContent(parts: readonly Part[]): ContentBlockParam[] {
  return parts.flatMap((part): ContentBlockParam[] => {
    if (part.text !== undefined) return [{ type: "text", text: part.text }];
    if (part.data !== undefined)
      return [{ type: "text", text: `\`\`\`json\n${dataText(part.data)}\n\`\`\`` }];
    return fileContent(part);
  });
}

/** Where a file part went, as said after its label: "" without a note from the harness. */
function savedAs(part: Part): string {
  const note = workspaceFileOf(part);
  if (note === null) return "";
  return "path" in note
    ? `, saved in the workspace as ${note.path} (${note.size} bytes)`
    : ` (${note.error})`;
}

/** An image or PDF as the model takes it (its bytes, or its URL), or null for any other type. */
function mediaBlock(part: Part, type: string): ContentBlockParam | null {
  // A file part carries its bytes or its URL (the edge checks it has one).
  const url = { type: "url" as const, url: part.url ?? "" };
  if (isImage(type))
    return {
      type: "image",
      source: part.raw === undefined ? url : { type: "base64", media_type: type, data: part.raw },
    };
  if (type === "application/pdf")
    return {
      type: "document",
      source:
        part.raw === undefined
          ? url
          : { type: "base64", media_type: "application/pdf", data: part.raw },
    };
  return null;
}

/** The blocks of one file part: its image or document, or its text, with where it was saved. */
function fileContent(part: Part): ContentBlockParam[] {
  const type = baseType(part.mediaType);
  const saved = savedAs(part);
  const media = mediaBlock(part, type);
  if (media !== null)
    return saved === ""
      ? [media]
      : [{ type: "text", text: `File ${fileLabel(part, type)}${saved}:` }, media];
  if (part.raw !== undefined) {
    const text = decodeUtf8(bytesOfBase64(part.raw));
    const label = `File ${fileLabel(part, type)}${saved}`;
    return [
      {
        type: "text",
        text: text === null ? `${label}. Its bytes are not text.` : `${label}:\n\n${text}`,
      },
    ];
  }
  const linked = `Linked file ${fileLabel(part, type || "unknown type")}: ${part.url ?? ""}`;
  const fetched = saved.startsWith(",") ? `\nFetched${saved}: read it with read_file.` : saved;
  return [{ type: "text", text: `${linked}${fetched}` }];
}

/** A user message's content with the task's environment note as its first block. */
export function withEnvironmentNote(
  content: string | ContentBlockParam[],
  note: string,
): ContentBlockParam[] {
  const blocks: ContentBlockParam[] =
    typeof content === "string" ? [{ type: "text", text: content }] : content;
  return [{ type: "text", text: note }, ...blocks];
}
