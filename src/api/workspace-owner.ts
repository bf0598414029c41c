/**
 * Whose workspace a files API request is about, with the credentials of A2A calls: a user's own
 * (per agent); an anonymous caller's conversation's, named with `?contextId=<id>` (anonymous
 * workspaces are per conversation, and the contextId is the capability, as in A2A); an admin's
 * own, or any owner's with `?owner=<id>` (a user's id, or an anonymous conversation's `anon-...`
 * owner). A user's `?contextId` is ignored (a user has one workspace per agent); `?owner` naming
 * anyone else is a 403 for a non-admin. An anonymous caller writes only into a conversation that
 * has a task of the agent (a 404 otherwise): the retention sweep finds anonymous workspaces by
 * their conversations' tasks, so a workspace made before any message would never be erased. Also
 * who asks, for the change history: the user's id, or `anonymous`.
 */
import type { Context } from "hono";
import { ANONYMOUS_CALLER, anonymousOwner } from "../auth/anonymous.ts";
import { HttpError } from "../platform/http-error.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { idSchema } from "../protocol/wire.ts";
import { KeyError, userPrefix } from "../store/r2-keys.ts";
import { contextHasTasks } from "../store/task-queries.ts";

/** The workspace a request reaches and the person asking. */
export interface WorkspaceCaller {
  /** The workspace's owner: a user's id or an anonymous conversation's. */
  owner: string;
  /** Who asks, as the change history names a person. */
  person: string;
}

/** A query value that must be an id (a contextId, an owner), or a 400 naming it. */
function idParam(c: Context<AppEnv>, name: string): string | undefined {
  const value = c.req.query(name);
  if (value === undefined) return undefined;
  const parsed = idSchema().safeParse(value);
  if (!parsed.success)
    throw new HttpError(400, `?${name}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}

/**
 * The workspace owner and the person for this request to `agent`'s files route; `writes` for a
 * request that stores something (an upload).
 */
export async function workspaceCaller(
  c: Context<AppEnv>,
  agent: string,
  writes = false,
): Promise<WorkspaceCaller> {
  const principal = c.get("principal");
  const named = idParam(c, "owner");
  const contextId = idParam(c, "contextId");
  let owner: string;
  if (principal.role === "admin") owner = named ?? principal.id;
  else if (named !== undefined && named !== principal.id)
    throw new HttpError(403, "only admins may name another owner's workspace (?owner=)");
  else if (principal.id !== ANONYMOUS_CALLER) owner = principal.id;
  else if (contextId === undefined)
    throw new HttpError(
      400,
      "an anonymous caller's workspace belongs to one conversation: name it with ?contextId=<id> (the contextId of your messages)",
    );
  else {
    owner = await anonymousOwner(contextId);
    if (writes && !(await contextHasTasks(c.env.DB, { owner, agent, contextId })))
      throw new HttpError(
        404,
        `no conversation ${contextId} with ${agent}: send it a message first (a file part in the message is saved in the workspace too), then upload with that message's contextId`,
      );
  }
  try {
    userPrefix(agent, owner);
  } catch (error) {
    if (error instanceof KeyError || owner === ANONYMOUS_CALLER)
      throw new HttpError(400, `?owner: no workspace can belong to ${JSON.stringify(owner)}`);
    throw error;
  }
  return { owner, person: principal.id };
}
