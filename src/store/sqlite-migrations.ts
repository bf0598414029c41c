/**
 * Schema migrations for a Durable Object's SQLite: each entry runs once, in order, recorded in
 * `schema_version`. Synchronous; call inside blockConcurrencyWhile. Append entries; never edit one.
 */

/** Brings `sql` to the newest of `migrations`. */
export function runMigrations(sql: SqlStorage, migrations: readonly string[]): void {
  sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0];
  let version = row?.version ?? 0;
  if (!row) sql.exec("INSERT INTO schema_version (version) VALUES (0)");
  while (version < migrations.length) {
    sql.exec(migrations[version] as string);
    version += 1;
    sql.exec("UPDATE schema_version SET version = ?", version);
  }
}
