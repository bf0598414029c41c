/**
 * The state of long work in the caller's workspace of an agent, read-only, for people (the
 * console's State panel), with the credentials of A2A calls and the same owner as the files API
 * (an anonymous caller names its conversation with `?contextId=`; an admin any owner with
 * `?owner=`: workspace-owner.ts):
 *   GET /api/workspaces/<agent>/state   `{ files: [{ name, keptBy, text }], checkpoints, changes }`
 * `files` is every state file (state/state-guard.ts's list, in its order: PROGRESS.json,
 * feature_status.json, HANDOFF.md, decisions.log, ...) with its whole text, null where there is
 * none; `checkpoints` the workspace's checkpoints, newest first; `changes` the newest
 * {@link CHANGES_SHOWN} rows of its change history, newest first. Nothing here changes anything:
 * a state file changes only through its keeping tool, a checkpoint is restored by the agent.
 */
import { Hono } from "hono";
import { authenticate } from "../auth/middleware.ts";
import { HttpError } from "../platform/http-error.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { STATE_FILES } from "../workspace/state/state-guard.ts";
import type { WsResult } from "../workspace/types.ts";
import { workspaceOf } from "./workspace-files-routes.ts";

/** How many of the newest changes the state route lists. */
export const CHANGES_SHOWN = 100;

/** The value of a workspace call, or a 500 (reading state refuses nothing a caller can fix). */
function value<T>(result: WsResult<T>): T {
  if (result.ok) return result.value;
  throw new HttpError(500, result.error);
}

/** The state route. */
export function workspaceStateRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/workspaces/:agent/state", authenticate(), async (c) => {
    const { ws } = await workspaceOf(c);
    const names = STATE_FILES.map((file) => file.name);
    const [snapshot, listed] = await Promise.all([
      ws.snapshot(names, { history: CHANGES_SHOWN }),
      ws.checkpointList(),
    ]);
    const { texts, changes } = value(snapshot);
    return c.json({
      files: STATE_FILES.map((file) => ({
        name: file.name,
        keptBy: file.tool ?? "the harness",
        text: texts[file.name] ?? null,
      })),
      checkpoints: value(listed).checkpoints,
      changes: changes ?? [],
    });
  });
  return app;
}
