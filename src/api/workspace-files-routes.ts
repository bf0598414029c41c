/**
 * The files API: the caller's workspace of an agent, as people reach it (the same workspace the
 * agent's tools work in), with the credentials of A2A calls (whose workspace: workspace-owner.ts):
 *   GET    /api/workspaces/<agent>/files[?prefix=]   `{ files: [{ path, size, modified, mediaType,
 *                                                    keptBy? }] }`, sorted by path
 *   GET    /api/workspaces/<agent>/files/<path>      the bytes as stored, with their media type, an
 *                                                    ETag (their sha256) and Content-Disposition
 *   PUT    /api/workspaces/<agent>/files/<path>      raw bytes in: 201 (created) or 200 (replaced)
 *                                                    with the file's entry and the checkpoint taken
 *   DELETE /api/workspaces/<agent>/files/<path>      204
 * The workspace's own rules apply, in the workspace object: the path rules (the path as the router
 * decoded it, once; refused if it climbs out, is absolute, has a backslash, an escape left or a
 * control character), MAX_FILE_BYTES (the body is refused past it, before it is kept), the file
 * count, the state guard (a state file is a 403 naming what keeps it, the file unchanged), an
 * automatic checkpoint before an overwrite or deletion loses an unsaved version, and the change
 * history, which marks the change as this person's. An upload counts as a message against the
 * caller's rate limit and, with REQUIRE_CONSENT, needs consent as a message does
 * (privacy/consent.ts). Errors are `{ error: { code, status, message } }` (platform/http-error.ts).
 * A downloaded file is served as an attachment in a sandbox (never rendered on this origin).
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AgentDefinition } from "../agents/identity.ts";
import { authenticate } from "../auth/middleware.ts";
import { agentNamed, checkAccess } from "../edge/agent-request.ts";
import { bodyLimit } from "../platform/body-limit.ts";
import { baseMediaType } from "../platform/content-type.ts";
import { HttpError } from "../platform/http-error.ts";
import { WORKSPACE_FILE_ROUTE } from "../platform/route-match.ts";
import { decodeUtf8 } from "../platform/utf8.ts";
import { checkUploadConsent } from "../privacy/consent.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { limitRequests } from "../users/rate-limit.ts";
import { workspaceFor } from "../workspace/client.ts";

import { MAX_FILE_BYTES, workspacePath } from "../workspace/limits.ts";
import { mediaTypeOf, UNKNOWN_TYPE } from "../workspace/media-type.ts";
import { stateFileAt } from "../workspace/state/state-guard.ts";
import type { Refusal, WorkspaceApi, WorkspaceEntry, WsResult } from "../workspace/types.ts";
import { workspaceCaller } from "./workspace-owner.ts";

/** A file as the files API lists it. */
export interface FileEntry {
  path: string;
  size: number;
  /** When it last changed (ISO 8601). */
  modified: string;
  mediaType: string;
  /** For a state file: what keeps it (its tool, or the harness); it cannot be changed here. */
  keptBy?: string;
}

/** The HTTP status of each kind of workspace refusal. */
const STATUS: Readonly<Record<Refusal, ContentfulStatusCode>> = {
  invalid_path: 400,
  not_found: 404,
  state_file: 403,
  too_large: 413,
  full: 507,
  not_text: 415,
};

/** The value of a workspace call, or its refusal as the HTTP error of its kind. */
function answered<T>(result: WsResult<T>): T {
  if (result.ok) return result.value;
  throw new HttpError(result.reason ? STATUS[result.reason] : 400, result.error);
}

/** A listed entry as the files API shows it. */
function fileEntry(entry: WorkspaceEntry): FileEntry {
  const state = stateFileAt(entry.path);
  return {
    path: entry.path,
    size: entry.size,
    modified: entry.updatedAt,
    mediaType: mediaTypeOf(entry.path),
    ...(state ? { keptBy: state.tool ?? "the harness" } : {}),
  };
}

/**
 * The request's file path, as the router matched and decoded it (platform/route-match.ts: the
 * path served is the path checked), normalised by the workspace's path rules or refused (400).
 */
function requestedPath(c: Context<AppEnv>): string {
  return answered(workspacePath(c.req.param("path") ?? ""));
}

/** A 403 for a state file: it changes only by its keeping tool or the harness. */
function refuseStateFile(path: string, verb: string): void {
  const state = stateFileAt(path);
  if (!state) return;
  const keeper = state.tool ?? "the harness at the end of each task";
  throw new HttpError(
    403,
    `${path} is a state file kept by ${keeper}; it cannot be ${verb} through the files API. Nothing was changed.`,
  );
}

/** The agent the path names (404/503 for an unknown or broken one; 403 without access). */
function agentOf(c: Context<AppEnv>): AgentDefinition {
  const name = c.req.param("agent") ?? "";
  const agent = agentNamed(c, name);
  c.set("agent", agent.name);
  checkAccess(c, agent);
  return agent;
}

/** The caller's workspace of the agent the path names, and who asks (also the state route's). */
export async function workspaceOf(
  c: Context<AppEnv>,
  writes = false,
): Promise<{ ws: WorkspaceApi; person: string }> {
  const agent = agentOf(c);
  const { owner, person } = await workspaceCaller(c, agent.name, writes);
  return { ws: workspaceFor(c.env.WORKSPACES, agent.name, owner), person };
}

/** `filename` as a Content-Disposition value (RFC 6266: an ASCII fallback and the UTF-8 name). */
function disposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** A file's bytes as the answer to a download. */
async function download(c: Context<AppEnv>, ws: WorkspaceApi, path: string): Promise<Response> {
  const { entry, bytes, hash } = answered(await ws.download(path));
  const etag = `"${hash}"`;
  const type = mediaTypeOf(entry.path);
  const headers = {
    "Content-Type":
      type === UNKNOWN_TYPE && decodeUtf8(bytes) !== null ? "text/plain; charset=utf-8" : type,
    "Content-Disposition": disposition(entry.path.split("/").pop() ?? entry.path),
    ETag: etag,
    "Last-Modified": new Date(entry.updatedAt).toUTCString(),
    "Cache-Control": "private, no-cache",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
  };
  if (c.req.header("If-None-Match") === etag) return c.body(null, 304, headers);
  return c.body(bytes.slice(), 200, headers); // a copy typed as Hono's body (an ArrayBuffer's view)
}

/** Refuses a body sent as a form: the files API takes the file's own bytes. */
function refuseForms(c: Context<AppEnv>): void {
  const type = baseMediaType(c.req.header("Content-Type"));
  if (type === "multipart/form-data" || type === "application/x-www-form-urlencoded")
    throw new HttpError(
      415,
      `send the file's own bytes as the body (curl -T <file>, or --data-binary @<file>), not ${type}`,
    );
}

/** The files API routes. */
export function workspaceFilesRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const files = "/api/workspaces/:agent/files";
  app.use(files, authenticate());
  app.use(WORKSPACE_FILE_ROUTE, authenticate(), limitRequests());

  // One file: the rest of the path, as the router decoded it.
  const file = `${files}/:path{.+}`;
  app.get(files, async (c) => list(c));
  app.get(`${files}/`, async (c) => list(c));
  app.get(file, async (c) => {
    const path = requestedPath(c);
    const { ws } = await workspaceOf(c);
    return download(c, ws, path);
  });

  app.put(file, bodyLimit({ maxBytes: MAX_FILE_BYTES }), async (c) => {
    const path = requestedPath(c);
    refuseStateFile(path, "uploaded or replaced");
    refuseForms(c);
    await checkUploadConsent(c);
    const { ws, person } = await workspaceOf(c, true);
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const written = answered(await ws.write(path, bytes, { taskId: "", person }));
    const entry = fileEntry({
      path: written.path,
      size: written.bytes,
      updatedAt: written.updatedAt,
    });
    return c.json({ ...entry, checkpoint: written.checkpoint }, written.created ? 201 : 200);
  });

  app.delete(file, async (c) => {
    const path = requestedPath(c);
    refuseStateFile(path, "deleted");
    const { ws, person } = await workspaceOf(c);
    answered(await ws.remove(path, { taskId: "", person }));
    return c.body(null, 204);
  });
  return app;
}

/** The listing (`?prefix=`). */
async function list(c: Context<AppEnv>): Promise<Response> {
  const { ws } = await workspaceOf(c);
  const { entries } = answered(await ws.list(c.req.query("prefix")));
  return c.json({ files: entries.map(fileEntry) });
}
