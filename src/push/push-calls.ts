/**
 * The push operations a task object answers (create, get, list, delete configs; read the
 * delivery record), on its {@link PushStore}. A config without an id gets one: the task id for a
 * v0.3 client (its `get` may name no config), else a new UUID. A task holds at most
 * MAX_PUSH_CONFIGS_PER_TASK configs: each is one POST per state change (with its retries), so the
 * cap bounds how far one task fans out to receivers; replacing a config by its id always works.
 */
import type { NewPushConfig, PushConfig } from "./push-config.ts";
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

/** The id a new config is stored under. */
const configId = (taskId: string, config: NewPushConfig): string =>
  config.id ?? (config.protocol === "0.3" ? taskId : crypto.randomUUID());

/**
 * Why `config` may not be added (a new config past `maxConfigs`), or null when it may: the
 * check a follow-up message's inline config passes before the message is taken.
 */
export function pushConfigRefusal(
  store: PushStore,
  taskId: string,
  config: NewPushConfig,
  maxConfigs: number,
): string | null {
  const replaces = config.id !== null || config.protocol === "0.3";
  if (replaces && store.config(configId(taskId, config))) return null;
  return store.configs().length >= maxConfigs
    ? `a task holds at most ${maxConfigs} push notification configs; delete one first (or set one again by its id to change it)`
    : null;
}

/** Adds `config`, or replaces the one with its id. */
export function putPushConfig(store: PushStore, taskId: string, config: NewPushConfig): PushConfig {
  const id = configId(taskId, config);
  const stored: PushConfig = {
    ...config,
    id,
    createdAt: store.config(id)?.createdAt ?? new Date().toISOString(),
  };
  store.put(stored);
  return stored;
}

/** Runs `call` on the store; `refused` says why a create or get was refused. */
export function runPushCall(
  store: PushStore,
  taskId: string,
  call: PushCall,
  maxConfigs: number,
): PushAnswer | { refused: "not_found" | "invalid"; message: string } {
  switch (call.op) {
    case "create": {
      const refusal = pushConfigRefusal(store, taskId, call.config, maxConfigs);
      if (refusal !== null) return { refused: "invalid", message: refusal };
      return { configs: [putPushConfig(store, taskId, call.config)] };
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
