/**
 * The push operations a task object answers (create, get, list, delete configs; read the
 * delivery record), on its {@link PushStore}. A config without an id gets one: the task id for a
 * v0.3 client (its `get` may name no config), else a new UUID.
 */
import { MAX_PUSH_CONFIGS, type NewPushConfig, type PushConfig } from "./push-config.ts";
import type { Delivery, PushStore } from "./push-store.ts";

/** One push operation. `owner: null` (deliveries only) is an admin's read. */
export type PushCall =
  | { op: "create"; owner: string; config: NewPushConfig }
  | { op: "get"; owner: string; id: string }
  | { op: "list"; owner: string }
  | { op: "delete"; owner: string; id: string }
  | { op: "deliveries"; owner: string | null };

/** What a push operation answers. */
export interface PushAnswer {
  configs: PushConfig[];
  deliveries?: Delivery[];
}

/** Runs `call` on the store; a string is the reason a create or get was refused. */
export function runPushCall(
  store: PushStore,
  taskId: string,
  call: PushCall,
): PushAnswer | { refused: "not_found" | "invalid"; message: string } {
  switch (call.op) {
    case "create": {
      const id = call.config.id ?? (call.config.protocol === "0.3" ? taskId : crypto.randomUUID());
      const existing = store.config(id);
      if (!existing && store.configs().length >= MAX_PUSH_CONFIGS)
        return {
          refused: "invalid",
          message: `a task holds at most ${MAX_PUSH_CONFIGS} push notification configs; delete one first`,
        };
      const config: PushConfig = {
        ...call.config,
        id,
        createdAt: existing?.createdAt ?? new Date().toISOString(),
      };
      store.put(config);
      return { configs: [config] };
    }
    case "get": {
      // An empty id (v0.3 `get` with the task id only) means the task's first config.
      const config = call.id === "" ? (store.configs()[0] ?? null) : store.config(call.id);
      return config
        ? { configs: [config] }
        : { refused: "not_found", message: `no push notification config ${call.id} on this task` };
    }
    case "list":
      return { configs: store.configs() };
    case "delete":
      // Idempotent: deleting a config that is not there succeeds.
      store.delete(call.id);
      return { configs: [] };
    case "deliveries":
      return { configs: store.configs(), deliveries: store.deliveries() };
  }
}
