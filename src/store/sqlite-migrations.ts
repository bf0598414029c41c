/**
 * Schema migrations for a Durable Object's SQLite: each entry runs once, in order, recorded in
 * `schema_version`. Synchronous; call inside blockConcurrencyWhile. Append entries; never edit one.
 * A database that holds nothing is left as it is when opened ({@link Schema.open}): an object
 * reached only to be asked about something it does not hold (a task id nobody created) writes
 * nothing, so it leaves no storage behind. The schema is created by the object's first write
 * ({@link Schema.ensure}), in one batch of statements: the migrations folded into one schema
 * (sqlite-squash.ts: each ALTER into its CREATE TABLE), else every migration in turn.
 *
 * Besides SQL, an entry may be {@link withoutRowid}`(table)`: the table rebuilt as a WITHOUT
 * ROWID table, its rows and indexes kept. A table keyed by text otherwise keeps that key in an
 * index beside its rows, and Durable Objects bill every row written to either: an insert into
 * such a table writes one row instead of two.
 */
import { rebuiltTable, squashed } from "./sqlite-squash.ts";

export { withoutRowid } from "./sqlite-squash.ts";

/**
 * Rebuilds `table` as a WITHOUT ROWID table: its CREATE TABLE with the clause, its rows copied,
 * its indexes made again as they were written.
 */
function rebuild(sql: SqlStorage, table: string): void {
  const catalogue = (type: string) =>
    sql
      .exec<{ sql: string }>(
        "SELECT sql FROM sqlite_master WHERE type = ? AND tbl_name = ? AND sql IS NOT NULL",
        type,
        table,
      )
      .toArray()
      .map((row) => row.sql);
  const [create] = catalogue("table");
  if (create === undefined) throw new Error(`no table ${table} to rebuild`);
  const indexes = catalogue("index");
  sql.exec(`ALTER TABLE ${table} RENAME TO ${table}__rowid`);
  sql.exec(`${create} WITHOUT ROWID`);
  sql.exec(`INSERT INTO ${table} SELECT * FROM ${table}__rowid`);
  sql.exec(`DROP TABLE ${table}__rowid`);
  for (const index of indexes) sql.exec(index);
}

/** Runs one migration entry. */
function apply(sql: SqlStorage, migration: string): void {
  const table = rebuiltTable(migration);
  if (table === null) sql.exec(migration);
  else rebuild(sql, table);
}

/** Each list of migrations, folded once per isolate (null: replayed). */
const folded = new WeakMap<readonly string[], string | null>();

/** An object's schema: read and migrated on open, created only once something is written. */
export class Schema {
  readonly #sql: SqlStorage;
  readonly #migrations: readonly string[];
  #stored: boolean;

  private constructor(sql: SqlStorage, migrations: readonly string[], stored: boolean) {
    this.#sql = sql;
    this.#migrations = migrations;
    this.#stored = stored;
  }

  /**
   * Opens `sql`: brings a database that holds the schema to the newest of `migrations`; leaves one
   * that holds none (new, or erased) empty, writing nothing.
   */
  static open(sql: SqlStorage, migrations: readonly string[]): Schema {
    return new Schema(sql, migrations, migrateStored(sql, migrations));
  }

  /**
   * Whether the database holds the schema. False: nothing was ever written (or all of it was
   * erased), so every table would be empty: the object answers from empty in-memory copies.
   */
  get stored(): boolean {
    return this.#stored;
  }

  /** Creates the schema if the database holds none: call before the object's first write. */
  ensure(): void {
    if (this.#stored) return;
    if (!folded.has(this.#migrations)) folded.set(this.#migrations, squashed(this.#migrations));
    const tables = folded.get(this.#migrations);
    if (tables === null || tables === undefined)
      for (const migration of this.#migrations) apply(this.#sql, migration);
    this.#sql.exec(
      `${tables ? `${tables.trim().replace(/;+$/, "")};` : ""}
       CREATE TABLE schema_version (version INTEGER NOT NULL);
       INSERT INTO schema_version (version) VALUES (${this.#migrations.length});`,
    );
    this.#stored = true;
  }
}

/** Brings `sql` to the newest of `migrations`; false (nothing done) when it holds no schema. */
function migrateStored(sql: SqlStorage, migrations: readonly string[]): boolean {
  // Asked of the catalogue, not by reading the table: a new object would pay for an exception.
  const found = sql
    .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    .toArray();
  if (found.length === 0) return false; // nothing was ever written here
  const row = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0];
  let version = row?.version ?? 0;
  if (!row) sql.exec("INSERT INTO schema_version (version) VALUES (0)");
  for (const migration of migrations.slice(version)) {
    apply(sql, migration);
    version += 1;
    sql.exec("UPDATE schema_version SET version = ?", version);
  }
  return true;
}
