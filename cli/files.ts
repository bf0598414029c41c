/**
 * `files ls|get|put|rm <agent>`: the caller's workspace of an agent of this harness, through the
 * files API (`/api/workspaces/<agent>/files`), with the CLI's token; an anonymous caller names
 * its conversation with --context (its workspace is the conversation's). And the file parts
 * `send --file` attaches: a local file's bytes with its name and media type. Failures are one
 * line with the server's own reason.
 */
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { base64Of } from "../src/platform/base64.ts";
import { decodeUtf8 } from "../src/platform/utf8.ts";
import { filesUrl } from "../src/protocol/files-route.ts";
import { mediaTypeOf, UNKNOWN_TYPE } from "../src/workspace/media-type.ts";
import type { CommandLine } from "./command-line.ts";
import { CliError, serverMessage } from "./errors.ts";
import type { Out } from "./render.ts";
import type { Http, Target } from "./target.ts";

type Json = Record<string, unknown>;

/** A file as the files API lists it. */
interface Listed {
  path: string;
  size: number;
  modified: string;
  mediaType: string;
  keptBy?: string;
}

/** All of standard input, as bytes. */
export async function readStdin(): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** The media type a local file is sent with: by its name, else text when its bytes are text. */
function typeOf(name: string, bytes: Uint8Array): string {
  const type = mediaTypeOf(name);
  if (type !== UNKNOWN_TYPE) return type;
  return decodeUtf8(bytes) === null ? UNKNOWN_TYPE : "text/plain; charset=utf-8";
}

/** A local file as a message's file part (`send --file`). */
export async function filePart(path: string): Promise<Json> {
  const bytes = await readLocal(path);
  const name = basename(path);
  return { raw: base64Of(bytes), filename: name, mediaType: typeOf(name, bytes) };
}

async function readLocal(path: string): Promise<Uint8Array<ArrayBuffer>> {
  if (path === "-") return readStdin();
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError(`cannot read ${path}${code ? ` (${code})` : ""}`);
  }
}

/** Runs `files <ls|get|put|rm> <agent> ...`; its exit code. */
export async function filesCommand(
  line: CommandLine,
  target: Target,
  http: Http,
  out: Out,
): Promise<number> {
  if (target.harness === null || !/^[a-z]/.test(target.agent))
    throw new CliError("files works with the agents of this harness, by name (not a URL)");
  const url = (path?: string) =>
    filesUrl(target.harness as string, target.agent, {
      ...(path ? { path } : {}),
      ...(line.context ? { contextId: line.context } : {}),
    });
  const call = async (method: string, href: string, init: RequestInit = {}) => {
    const response = await http.fetch(href, { ...init, method });
    if (response.ok) return response;
    const said = await serverMessage(response);
    const hint =
      response.status === 400 && !line.context && !http.hasToken
        ? " (without a token, name the conversation: --context <id>)"
        : "";
    throw new CliError(
      `files ${line.files}: ${said ?? `HTTP ${response.status}`}${hint} (HTTP ${response.status})`,
    );
  };
  const [first = "", second] = line.rest;
  switch (line.files) {
    case "ls": {
      const href = new URL(url());
      if (first) href.searchParams.set("prefix", first);
      const { files } = (await (await call("GET", href.href)).json()) as { files: Listed[] };
      if (line.json) out.write(`${JSON.stringify(files, null, 2)}\n`);
      else for (const f of files) out.write(`${listLine(f)}\n`);
      if (!line.json)
        process.stderr.write(`${files.length} file${files.length === 1 ? "" : "s"}\n`);
      return 0;
    }
    case "get": {
      const bytes = new Uint8Array(await (await call("GET", url(first))).arrayBuffer());
      if (second === undefined || second === "-") process.stdout.write(bytes);
      else {
        await writeFile(second, bytes);
        process.stderr.write(`saved ${second} (${bytes.byteLength} bytes)\n`);
      }
      return 0;
    }
    case "put": {
      const bytes = await readLocal(first);
      const path = second ?? (first === "-" ? "" : basename(first));
      if (!path) throw new CliError("files put - needs the path to give the file in the workspace");
      const response = await call("PUT", url(path), {
        body: bytes,
        headers: { "Content-Type": typeOf(path, bytes) },
      });
      const entry = (await response.json()) as Listed & { checkpoint?: string | null };
      if (line.json) out.write(`${JSON.stringify(entry, null, 2)}\n`);
      else
        out.write(
          `${response.status === 201 ? "created" : "replaced"} ${entry.path} (${entry.size} bytes)${entry.checkpoint ? `; checkpoint ${entry.checkpoint} holds the version before` : ""}\n`,
        );
      return 0;
    }
    default: {
      await call("DELETE", url(first));
      if (!line.json) out.write(`deleted ${first}\n`);
      return 0;
    }
  }
}

/** One line of `files ls`: path, size, when it changed, its type (and what keeps a state file). */
function listLine(file: Listed): string {
  const when = file.modified.slice(0, 16).replace("T", " ");
  const kept = file.keptBy ? `  (kept by ${file.keptBy})` : "";
  return `${file.path}  ${file.size} bytes  ${when}  ${file.mediaType.split(";")[0]}${kept}`;
}
