/**
 * Schema migrations for a Durable Object's SQLite: each entry runs once, in order, recorded in
 * `schema_version`. Synchronous; call inside blockConcurrencyWhile. Append entries; never edit one.
 * A new database (every new task and conversation) gets the whole schema in one batch of
 * statements: one call instead of three per migration.
 */

/**
 * Brings `sql` to the newest of `migrations`. True when the database was new: every table is
 * empty, so an object can start with empty in-memory copies instead of reading them.
 */
export function runMigrations(sql: SqlStorage, migrations: readonly string[]): boolean {
  let row: { version: number } | undefined;
  try {
    row = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0];
  } catch {
    // No schema_version table: a new database.
    sql.exec(
      `${migrations.map((m) => m.trim().replace(/;+$/, "")).join(";\n")};
       CREATE TABLE schema_version (version INTEGER NOT NULL);
       INSERT INTO schema_version (version) VALUES (${migrations.length});`,
    );
    return true;
  }
  let version = row?.version ?? 0;
  if (!row) sql.exec("INSERT INTO schema_version (version) VALUES (0)");
  while (version < migrations.length) {
    sql.exec(migrations[version] as string);
    version += 1;
    sql.exec("UPDATE schema_version SET version = ?", version);
  }
  return false;
}
