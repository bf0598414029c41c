/**
 * Agents changed at runtime: an admin's upload of an IDENTITY.md (with, optionally, the agent's
 * skills) is validated, stored in R2 at `agents/<name>/shared/IDENTITY.md` (the skills beside it
 * in `skills.json`) and listed in `harness/agent-overrides.json`, and replaces the bundled
 * identity of that name (or adds an agent). An upload without skills keeps the bundled agent's
 * own skills; one with skills replaces them. Tools in code cannot be uploaded: an uploaded agent
 * runs the bundled tools of its name, and the shared ones. `refreshAgents` (called where requests
 * and task steps begin) reloads the merged registry when the list changed: at once in the isolate
 * that took the upload; elsewhere it checks at most every 30 seconds, and a request that finds the
 * check due is served by the registry it has while the check runs beside it (so no request waits
 * for R2 once the isolate has loaded the registry). `currentAgents()` is the current registry, sync.
 * The check compares the index's R2 version (each write makes a new one): `reloadAgents` (POST
 * /api/admin/reload) rebuilds this isolate's registry from R2 at once and rewrites the index, so
 * every other isolate rebuilds on its next check too; `checkAgentsNow` runs the check now.
 */

import { log } from "../platform/logging.ts";
import { sharedKey } from "../store/r2-keys.ts";
import { bundledSet } from "./bundle.ts";
import { parseEntry, parseShared } from "./entry-parse.ts";
import { AgentRegistry, bundledAgents, entryName, type IdentityEntry } from "./registry.ts";
import { type SkillFiles, skillFilesOf, skillSourcesOf } from "./skill-folders.ts";

/** The R2 key listing the overridden agents. */
export const OVERRIDES_INDEX = "harness/agent-overrides.json";
/**
 * How often a busy isolate heads the index: uploads are rare, and each head is an R2 read billed
 * per isolate (every 2 s it was 43,200 a day per isolate; every 30 s, 2,880).
 */
export const OVERRIDES_RECHECK_MS = 30_000;

/** An uploaded agent: when, and whether its skills were uploaded with it. */
type Index = Record<string, { updatedAt: string; skills?: boolean }>;

/** What an upload carries: the IDENTITY.md, and the agent's skills when it replaces them. */
export interface AgentUpload {
  identity: string;
  skills?: SkillFiles;
}

const SKILLS_FILE = "skills.json";

/** The entry of an uploaded agent: its identity and skills, the bundled tools of its name. */
function uploadedEntry(name: string, upload: AgentUpload): IdentityEntry {
  const bundled = bundledSet().entries.find((e) => entryName(e) === name);
  const skills =
    upload.skills === undefined
      ? (bundled?.skills ?? [])
      : skillSourcesOf(`agents/${name}/skills`, upload.skills);
  return {
    file: `agents/${name}/IDENTITY.md (uploaded)`,
    text: upload.identity,
    tools: bundled?.tools ?? [],
    skills,
    ...(bundled?.problem ? { problem: bundled.problem } : {}),
  };
}

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
 * Reloads the registry if the overrides changed (checked at most every 30 seconds). With
 * `background`, a loaded registry is returned at once and the check is handed to it.
 */
export async function refreshAgents(
  env: Env,
  background?: (work: Promise<unknown>) => void,
): Promise<AgentRegistry> {
  if (current && Date.now() - checkedAt < OVERRIDES_RECHECK_MS) return current;
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
  for (const [name, entry] of Object.entries(index)) {
    const upload = await readUpload(env.FILES, name, entry.skills === true);
    if (upload) overrides.push(safely(name, upload));
  }
  const replaced = new Set(Object.keys(index));
  const { entries, shared } = bundledSet();
  const bundled = entries.filter((e) => !replaced.has(entryName(e)));
  try {
    current = new AgentRegistry([...bundled, ...overrides], shared);
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

/** An upload as stored, or null when its identity is gone. */
async function readUpload(
  bucket: R2Bucket,
  name: string,
  withSkills: boolean,
): Promise<AgentUpload | null> {
  const identity = await bucket.get(sharedKey(name, "IDENTITY.md"));
  if (!identity) return null;
  const skills = withSkills ? await bucket.get(sharedKey(name, SKILLS_FILE)) : null;
  return {
    identity: await identity.text(),
    // Written by putOverride from an upload that passed its schema and the skills' parse.
    ...(skills ? { skills: (await skills.json()) as SkillFiles } : {}),
  };
}

/**
 * The entry of a stored upload; one whose skills no longer convert (a folder without SKILL.md)
 * is an entry that fails to parse, so that agent answers the error and the others serve.
 */
function safely(name: string, upload: AgentUpload): IdentityEntry {
  try {
    return uploadedEntry(name, upload);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      file: `agents/${name}/IDENTITY.md (uploaded)`,
      text: upload.identity,
      problem: { file: `agents/${name}/skills`, reason },
    };
  }
}

/**
 * Validates and stores an uploaded identity (and skills, replacing the bundled agent's own);
 * throws IdentityError naming the file and field, as the build would.
 */
export async function putOverride(env: Env, name: string, upload: AgentUpload): Promise<void> {
  // Also checks that its name is `name`, its program exists, its skills and tool names.
  parseEntry(uploadedEntry(name, upload), parseShared(bundledSet().shared));
  await env.FILES.put(sharedKey(name, "IDENTITY.md"), upload.identity, {
    httpMetadata: { contentType: "text/markdown; charset=utf-8" },
  });
  if (upload.skills === undefined) await env.FILES.delete(sharedKey(name, SKILLS_FILE));
  else
    await env.FILES.put(sharedKey(name, SKILLS_FILE), JSON.stringify(upload.skills), {
      httpMetadata: { contentType: "application/json" },
    });
  const { index } = await readIndex(env.FILES);
  index[name] = {
    updatedAt: new Date().toISOString(),
    ...(upload.skills === undefined ? {} : { skills: true }),
  };
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
  await env.FILES.delete([sharedKey(name, "IDENTITY.md"), sharedKey(name, SKILLS_FILE)]);
  checkedAt = 0;
  await refreshAgents(env);
  return true;
}

/**
 * The identity in force for `name` (uploaded or bundled) with the agent's own skills (their text
 * files), as an upload carries them; null when there is no such agent.
 */
export async function agentUpload(env: Env, name: string): Promise<Required<AgentUpload> | null> {
  const { index } = await readIndex(env.FILES);
  const bundled = bundledSet().entries.find((e) => e.file === `agents/${name}/IDENTITY.md`);
  const upload = Object.hasOwn(index, name)
    ? await readUpload(env.FILES, name, index[name]?.skills === true)
    : null;
  if (upload)
    return {
      identity: upload.identity,
      skills: upload.skills ?? skillFilesOf(bundled?.skills ?? []),
    };
  return bundled ? { identity: bundled.text, skills: skillFilesOf(bundled.skills ?? []) } : null;
}
