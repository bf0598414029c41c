/**
 * Agents changed at runtime: an admin's upload of an IDENTITY.md is validated, stored in R2 at
 * `agents/<name>/shared/IDENTITY.md` and listed in `harness/agent-overrides.json`, and replaces
 * the bundled identity of that name (or adds an agent). `refreshAgents` (called where requests
 * and task steps begin) reloads the merged registry when the list changed: at once in the isolate
 * that took the upload; elsewhere it checks at most every 2 seconds, and a request that finds the
 * check due is served by the registry it has while the check runs beside it (so no request waits
 * for R2 once the isolate has loaded the registry). `currentAgents()` is the current registry, sync.
 * The check compares the index's R2 version (each write makes a new one): `reloadAgents` (POST
 * /api/admin/reload) rebuilds this isolate's registry from R2 at once and rewrites the index, so
 * every other isolate rebuilds on its next check too; `checkAgentsNow` runs the check now.
 */

import { log } from "../platform/logging.ts";
import { sharedKey } from "../store/r2-keys.ts";
import { BUNDLED_IDENTITIES } from "./bundled.generated.ts";
import { parseIdentity } from "./identity.ts";
import { AgentRegistry, bundledAgents, entryName, type IdentityEntry } from "./registry.ts";

/** The R2 key listing the overridden agents. */
export const OVERRIDES_INDEX = "harness/agent-overrides.json";
const RECHECK_MS = 2_000;

type Index = Record<string, { updatedAt: string }>;

let current: AgentRegistry | null = null;
let currentVersion: string | null = null;
let checkedAt = 0;

/** The current agents (bundled, with any runtime overrides as last loaded). */
export function currentAgents(): AgentRegistry {
  return current ?? bundledAgents();
}

async function readIndex(bucket: R2Bucket): Promise<{ index: Index; version: string | null }> {
  const object = await bucket.get(OVERRIDES_INDEX);
  if (!object) return { index: {}, version: null };
  return { index: (await object.json()) as Index, version: object.version };
}

/**
 * Reloads the registry if the overrides changed (checked at most every 2 seconds). With
 * `background`, a loaded registry is returned at once and the check is handed to it.
 */
export async function refreshAgents(
  env: Env,
  background?: (work: Promise<unknown>) => void,
): Promise<AgentRegistry> {
  if (current && Date.now() - checkedAt < RECHECK_MS) return current;
  if (current && background) {
    checkedAt = Date.now(); // one check at a time
    background(
      reload(env).catch((error) =>
        log("warn", "agent overrides check failed", { error: String(error) }),
      ),
    );
    return current;
  }
  return reload(env);
}

async function reload(env: Env, force = false): Promise<AgentRegistry> {
  const head = await env.FILES.head(OVERRIDES_INDEX).catch(() => null);
  checkedAt = Date.now();
  if (current && !force && (head?.version ?? null) === currentVersion) return current;
  const { index, version: loaded } = await readIndex(env.FILES);
  const overrides: IdentityEntry[] = [];
  for (const name of Object.keys(index)) {
    const object = await env.FILES.get(sharedKey(name, "IDENTITY.md"));
    if (object)
      overrides.push({ file: `agents/${name}/IDENTITY.md (uploaded)`, text: await object.text() });
  }
  const replaced = new Set(Object.keys(index));
  const bundled = BUNDLED_IDENTITIES.filter((e) => !replaced.has(entryName(e)));
  try {
    current = new AgentRegistry([...bundled, ...overrides]);
  } catch (error) {
    log("error", "agent overrides unusable", { error: String(error) });
    current = bundledAgents();
  }
  currentVersion = loaded;
  return current;
}

/** Runs the overrides check now (a head of the index), reloading if they changed. */
export function checkAgentsNow(env: Env): Promise<AgentRegistry> {
  checkedAt = 0;
  return refreshAgents(env);
}

/**
 * Re-reads every uploaded identity now and rebuilds this isolate's registry, then rewrites the
 * index (same content, a new R2 version) so every other isolate rebuilds on its next check.
 */
export async function reloadAgents(env: Env): Promise<AgentRegistry> {
  const { index } = await readIndex(env.FILES);
  await env.FILES.put(OVERRIDES_INDEX, JSON.stringify(index));
  return reload(env, true);
}

/** Validates and stores an uploaded identity; throws IdentityError naming the field. */
export async function putOverride(env: Env, name: string, text: string): Promise<void> {
  const file = `agents/${name}/IDENTITY.md (uploaded)`;
  parseIdentity(file, text); // also checks that its name is `name` and its program exists
  await env.FILES.put(sharedKey(name, "IDENTITY.md"), text, {
    httpMetadata: { contentType: "text/markdown; charset=utf-8" },
  });
  const { index } = await readIndex(env.FILES);
  index[name] = { updatedAt: new Date().toISOString() };
  await env.FILES.put(OVERRIDES_INDEX, JSON.stringify(index));
  checkedAt = 0;
  await refreshAgents(env);
}

/** Drops an override (the bundled identity, if any, applies again). False when there was none. */
export async function deleteOverride(env: Env, name: string): Promise<boolean> {
  const { index } = await readIndex(env.FILES);
  if (!Object.hasOwn(index, name)) return false;
  delete index[name];
  await env.FILES.put(OVERRIDES_INDEX, JSON.stringify(index));
  await env.FILES.delete(sharedKey(name, "IDENTITY.md"));
  checkedAt = 0;
  await refreshAgents(env);
  return true;
}

/** The identity text in force for `name` (uploaded or bundled), or null. */
export async function identityText(env: Env, name: string): Promise<string | null> {
  const { index } = await readIndex(env.FILES);
  if (Object.hasOwn(index, name))
    return (await env.FILES.get(sharedKey(name, "IDENTITY.md")))?.text() ?? null;
  return BUNDLED_IDENTITIES.find((e) => e.file === `agents/${name}/IDENTITY.md`)?.text ?? null;
}
