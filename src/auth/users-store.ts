/**
 * Users and tokens in D1 (migrations/0004): look a caller up by token hash or OIDC subject, and
 * the writes the users CLI and the admin API make. A revoked token or a disabled user finds no
 * principal.
 */
import { storedJson } from "../platform/stored-json.ts";
import type { Consent, Principal, Role, UserBudget } from "../protocol/app-types.ts";
import { sameHash } from "./secrets.ts";
import { newToken, tokenHash, tokenPrefix } from "./tokens.ts";
import { OIDC_USER_PREFIX } from "./user-ids.ts";

/** A user as stored. */
export interface UserRow {
  id: string;
  name: string;
  role: Role;
  agents: string[] | null;
  subject: string | null;
  budget: UserBudget | null;
  createdAt: string;
  disabledAt: string | null;
  /** The privacy policy version consented to, and when (migrations/0006); null: none. */
  consent: Consent | null;
}

interface Row {
  id: string;
  name: string;
  role: string;
  agents_json: string | null;
  subject: string | null;
  budget_json: string | null;
  created_at: string;
  disabled_at: string | null;
  consent_version: string | null;
  consented_at: string | null;
}

const fromRow = (row: Row): UserRow => ({
  id: row.id,
  name: row.name,
  role: row.role === "admin" ? "admin" : "user",
  agents: row.agents_json ? storedJson<string[]>(row.agents_json) : null,
  subject: row.subject,
  budget: row.budget_json ? storedJson<UserBudget>(row.budget_json) : null,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
  consent:
    row.consent_version && row.consented_at
      ? { version: row.consent_version, at: row.consented_at }
      : null,
});

const principalOf = (user: UserRow, via: Principal["via"], hash?: string): Principal => ({
  id: user.id,
  role: user.role,
  agents: user.agents,
  via,
  ...(hash ? { tokenHash: hash } : {}),
  budget: user.budget,
  consent: user.consent,
});

/** The principal holding an unrevoked token of an enabled user, or null. */
export async function principalByToken(db: D1Database, token: string): Promise<Principal | null> {
  const hash = await tokenHash(token);
  const row = await db
    .prepare(
      `SELECT u.*, t.hash AS token_hash FROM tokens t JOIN users u ON u.id = t.user_id
       WHERE t.hash = ? AND t.revoked_at IS NULL AND u.disabled_at IS NULL`,
    )
    .bind(hash)
    .first<Row & { token_hash: string }>();
  if (!row || !sameHash(row.token_hash, hash)) return null;
  return principalOf(fromRow(row), "token", hash);
}

/** The user mapped to an OIDC subject; created (role user) on first sight. Null if disabled. */
export async function principalBySubject(
  db: D1Database,
  subject: string,
  name: string,
): Promise<Principal | null> {
  const found = await db
    .prepare("SELECT * FROM users WHERE subject = ?")
    .bind(subject)
    .first<Row>();
  if (found) return found.disabled_at ? null : principalOf(fromRow(found), "jwt");
  const id = `${OIDC_USER_PREFIX}${(await tokenHash(subject)).slice(0, 24)}`;
  await db
    .prepare(
      "INSERT OR IGNORE INTO users (id, name, role, subject, created_at) VALUES (?, ?, 'user', ?, ?)",
    )
    .bind(id, name.slice(0, 200) || subject.slice(0, 200), subject, new Date().toISOString())
    .run();
  const user = await getUser(db, id);
  // A row under that id made for anyone else (an admin's, before the prefix was reserved) is
  // never this subject's.
  return user && user.subject === subject && !user.disabledAt ? principalOf(user, "jwt") : null;
}

/** A user by id. */
export async function getUser(db: D1Database, id: string): Promise<UserRow | null> {
  const row = await db.prepare("SELECT * FROM users WHERE id = ?").bind(id).first<Row>();
  return row ? fromRow(row) : null;
}

/** Every user, oldest first. */
export async function listUsers(db: D1Database): Promise<UserRow[]> {
  const { results } = await db.prepare("SELECT * FROM users ORDER BY created_at, id").all<Row>();
  return results.map(fromRow);
}

/** Creates a user with a first token; returns the token (shown once). */
export async function createUser(
  db: D1Database,
  input: { id: string; name: string; role: Role; agents: string[] | null },
): Promise<{ user: UserRow; token: string }> {
  const now = new Date().toISOString();
  await db
    .prepare("INSERT INTO users (id, name, role, agents_json, created_at) VALUES (?, ?, ?, ?, ?)")
    .bind(input.id, input.name, input.role, input.agents ? JSON.stringify(input.agents) : null, now)
    .run();
  const token = await addToken(db, input.id, "first token");
  const user = await getUser(db, input.id);
  if (!user) throw new Error("user not created");
  return { user, token };
}

/** A new token for a user (shown once). */
export async function addToken(db: D1Database, userId: string, label: string): Promise<string> {
  const token = newToken();
  await db
    .prepare("INSERT INTO tokens (hash, user_id, label, prefix, created_at) VALUES (?, ?, ?, ?, ?)")
    .bind(await tokenHash(token), userId, label, tokenPrefix(token), new Date().toISOString())
    .run();
  return token;
}

/** The hashes of every token of a user (to forget cached lookups of them). */
export async function tokenHashes(db: D1Database, userId: string): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT hash FROM tokens WHERE user_id = ?")
    .bind(userId)
    .all<{ hash: string }>();
  return results.map((r) => r.hash);
}

/** A user's tokens as the user may see them: prefix, label and times, never a hash. */
export async function tokenList(db: D1Database, userId: string) {
  const { results } = await db
    .prepare(
      "SELECT prefix, label, created_at AS createdAt, revoked_at AS revokedAt FROM tokens WHERE user_id = ?",
    )
    .bind(userId)
    .all<{ prefix: string; label: string; createdAt: string; revokedAt: string | null }>();
  return results;
}

/** Revokes every token of a user; returns how many. */
export async function revokeTokens(db: D1Database, userId: string): Promise<number> {
  const result = await db
    .prepare("UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL")
    .bind(new Date().toISOString(), userId)
    .run();
  return result.meta.changes ?? 0;
}

/** Sets (or clears, with null) a user's budget overrides. */
export async function setBudget(
  db: D1Database,
  userId: string,
  budget: UserBudget | null,
): Promise<boolean> {
  const result = await db
    .prepare("UPDATE users SET budget_json = ? WHERE id = ?")
    .bind(budget ? JSON.stringify(budget) : null, userId)
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * Records (or, with null, withdraws) a user's consent to privacy policy `version` at `at`; false
 * when there is no such user.
 */
export async function setConsent(
  db: D1Database,
  userId: string,
  consent: Consent | null,
): Promise<boolean> {
  const result = await db
    .prepare("UPDATE users SET consent_version = ?, consented_at = ? WHERE id = ?")
    .bind(consent?.version ?? null, consent?.at ?? null, userId)
    .run();
  return (result.meta.changes ?? 0) > 0;
}
