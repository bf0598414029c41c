/**
 * The ids exported spans carry in place of a task's and a conversation's own. For an anonymous
 * caller its contextId and its tasks' ids are its keys (whoever names one reads, continues or
 * erases the conversation), so none leaves in an export: each is replaced by an HMAC-SHA256 of
 * the id under the deployment's `trace-ids` key (store/deployment-keys.ts: random, made on first
 * use, never sent anywhere), 32 hex characters. The same id always gives the same stand-in, so a
 * reader of the collector still ties a task's spans, a conversation's tasks and a delegation to
 * the child task it started together; without the key a stand-in cannot be checked against a
 * guessed id, nor tied to any other id of the deployment. The trace route (`GET
 * /api/tasks/<id>/trace`) answers the task's owner the ids themselves.
 */
import { hmacHex } from "../platform/hex.ts";
import { deploymentKey } from "../store/deployment-keys.ts";
import type { AttributeValue, TraceSpan } from "./span-types.ts";

/** Span attributes that hold an id that opens something, and what kind of id each holds. */
const ID_ATTRIBUTES: Readonly<Record<string, "task" | "conversation">> = {
  "gen_ai.conversation.id": "conversation",
  "a2a.task.id": "task",
  "a2a.delegation.task_id": "task",
};

/** The isolate's copy of the key (read once; read again after a failure). */
let key: Promise<string> | null = null;

/** The deployment's key of exported ids. */
export function exportedIdKey(db: D1Database): Promise<string> {
  key ??= deploymentKey(db, "trace-ids").catch((error: unknown) => {
    key = null;
    throw error;
  });
  return key;
}

/** `spans` as they are exported: every id attribute replaced by its keyed stand-in. */
export async function exportedSpans(spans: TraceSpan[], secret: string): Promise<TraceSpan[]> {
  const standIns = new Map<string, Promise<string>>();
  const standIn = (kind: string, id: string) => {
    const data = `${kind}:${id}`;
    let hashed = standIns.get(data);
    if (!hashed) {
      hashed = hmacHex(secret, data).then((hex) => hex.slice(0, 32));
      standIns.set(data, hashed);
    }
    return hashed;
  };
  return Promise.all(
    spans.map(async (span) => {
      const attributes: Record<string, AttributeValue> = { ...span.attributes };
      for (const [name, kind] of Object.entries(ID_ATTRIBUTES)) {
        const value = attributes[name];
        if (typeof value === "string") attributes[name] = await standIn(kind, value);
      }
      return { ...span, attributes };
    }),
  );
}
