/**
 * The deployment's own keys in D1 (migrations/0007): each a random 256-bit value made on first
 * use under its name, the same for every isolate and object from then on, and never sent
 * anywhere. Two deployments that share nothing have different keys.
 */
import { randomHex } from "../platform/hex.ts";

/** The key named `name`, made now if there is none (concurrent first uses agree on one). */
export async function deploymentKey(db: D1Database, name: string): Promise<string> {
  const read = () =>
    db
      .prepare("SELECT key FROM deployment_keys WHERE name = ?")
      .bind(name)
      .first<{ key: string }>();
  const found = await read();
  if (found) return found.key;
  await db
    .prepare("INSERT OR IGNORE INTO deployment_keys (name, key, created_at) VALUES (?, ?, ?)")
    .bind(name, randomHex(32), new Date().toISOString())
    .run();
  const made = await read();
  if (!made) throw new Error(`deployment key ${name} was not stored`);
  return made.key;
}
