/**
 * The caller's side of a workspace: {@link workspaceFor} turns the workspace Durable Object's
 * namespace, an agent and an owner into a {@link WorkspaceApi}. Each call gets a fresh stub of
 * the object named by `workspaceKey(agent, owner)` and passes `{ agent, owner }` as the RPC's
 * first argument; a change adds its idempotency key (`call`, a new one per change) there, so the
 * retries the bindings make on a transient failure (platform/bindings.ts) write once.
 */
import { stubByName } from "../platform/object-stub.ts";
import { type WorkspaceRpc, type WorkspaceScope, workspaceKey } from "./keys.ts";
import type { WorkspaceApi } from "./types.ts";
import type { WorkspaceObject } from "./workspace-object.ts";

/**
 * The stub seen through the object's own signatures. Every workspace value is a plain object
 * (strings, numbers, booleans, arrays), so RPC hands back exactly what the object returned; the
 * generated stub types only lose the `ok` discriminant by distributing over the union.
 */
type Stub = WorkspaceRpc;

const stubOf = (ns: DurableObjectNamespace<WorkspaceObject>, name: string): Stub =>
  stubByName(ns, name) as unknown as Stub;

/** The workspace of `owner` with `agent`, as a {@link WorkspaceApi}. */
export function workspaceFor(
  ns: DurableObjectNamespace<WorkspaceObject>,
  agent: string,
  owner: string,
): WorkspaceApi {
  const scope: WorkspaceScope = { agent, owner };
  const name = workspaceKey(agent, owner);
  const call = <T>(fn: (stub: Stub) => Promise<T>): Promise<T> => fn(stubOf(ns, name));
  /** The scope of one change: with its own idempotency key. */
  const change = (): WorkspaceScope => ({ ...scope, call: crypto.randomUUID() });
  const api = {
    read: (path, options) => call((s) => s.read(scope, path, options)),
    write: (path, content, meta) => call((s) => s.write(change(), path, content, meta)),
    remove: (path, meta) => call((s) => s.remove(change(), path, meta)),
    download: (path) => call((s) => s.download(scope, path)),
    edit: (path, oldText, newText, meta) =>
      call((s) => s.edit(change(), path, oldText, newText, meta)),
    list: (prefix) => call((s) => s.list(scope, prefix)),
    snapshot: (paths, options) => call((s) => s.snapshot(scope, paths, options)),
    versions: (path, limit) => call((s) => s.versions(scope, path, limit)),
    readAt: (checkpoint, path) => call((s) => s.readAt(scope, checkpoint, path)),
    memory: () => call((s) => s.memory(scope)),
    memoryWrite: (content, mode) => call((s) => s.memoryWrite(change(), content, mode)),
    grep: (pattern, options) => call((s) => s.grep(scope, pattern, options)),
    checkpointCreate: (label, meta) => call((s) => s.checkpointCreate(change(), label, meta)),
    checkpointList: () => call((s) => s.checkpointList(scope)),
    checkpointRestore: (id, meta) => call((s) => s.checkpointRestore(change(), id, meta)),
    taskCheckpoint: (taskId) => call((s) => s.taskCheckpoint(scope, taskId)),
    endNote: (input) => call((s) => s.endNote(change(), input)),
  } satisfies WorkspaceApi;
  return api;
}
