/**
 * Each object's schema (task, workspace, conversation, user) two ways: a new object is created
 * from its migrations folded into one schema (store/sqlite-squash.ts), in one batch; an object
 * stored before a migration is brought up by the migrations one at a time. Both must leave the same tables, columns, constraints and
 * indexes (each object's own SQLite, compared through sqlite_master with white space left out).
 * Also: opening a database that holds no schema writes nothing, one that holds an older version
 * is migrated to the newest, and a table rebuilt WITHOUT ROWID keeps its rows and indexes.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTEXT_MIGRATIONS } from "../../src/conversations/context-store.ts";
import { stubByName } from "../../src/platform/object-stub.ts";
import { Schema, withoutRowid } from "../../src/store/sqlite-migrations.ts";
import { squashed } from "../../src/store/sqlite-squash.ts";
import { TASK_MIGRATIONS } from "../../src/task/store/schema.ts";
import { USER_MIGRATIONS } from "../../src/users/user-object.ts";
import { WORKSPACE_MIGRATIONS } from "../../src/workspace/schema.ts";

const SCHEMAS = {
  task: TASK_MIGRATIONS,
  workspace: WORKSPACE_MIGRATIONS,
  conversation: CONTEXT_MIGRATIONS,
  user: USER_MIGRATIONS,
};

/** Runs `fn` on the SQLite of a task object nobody used (its constructor writes nothing). */
function inEmptyObject<R>(fn: (sql: SqlStorage) => R): Promise<R> {
  return runInDurableObject(stubByName(env.TASKS, `schema-${crypto.randomUUID()}`), (_o, state) =>
    fn(state.storage.sql),
  );
}

/** Every table and index the schema made, by name, its SQL without white space. */
function catalogue(sql: SqlStorage): Record<string, string> {
  const rows = sql
    .exec<{ name: string; sql: string | null }>(
      "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .toArray();
  return Object.fromEntries(rows.map((r) => [r.name, (r.sql ?? "").replace(/\s+/g, "")]));
}

const version = (sql: SqlStorage) =>
  sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;

describe("the objects' schemas", () => {
  it.each(Object.entries(SCHEMAS))(
    "%s: the same created in one batch as migrated step by step",
    async (_name, migrations) => {
      // The batch is the folded schema, not a replay of every migration.
      expect(squashed(migrations)).not.toBeNull();
      const created = await inEmptyObject((sql) => {
        Schema.open(sql, migrations).ensure();
        return { tables: catalogue(sql), version: version(sql) };
      });
      const migrated = await inEmptyObject((sql) => {
        // As an object stored before the first migration: the version table at 0, then opened.
        sql.exec("CREATE TABLE schema_version (version INTEGER NOT NULL)");
        const schema = Schema.open(sql, migrations);
        return { stored: schema.stored, tables: catalogue(sql), version: version(sql) };
      });
      expect(migrated.stored).toBe(true);
      expect(Object.keys(created.tables).length).toBeGreaterThan(1);
      expect(created.tables).toEqual(migrated.tables);
      expect(created.version).toBe(migrations.length);
      expect(migrated.version).toBe(migrations.length);
    },
  );

  it("moves the places kept in an earlier version's grants into the user's window", async () => {
    const window = await inEmptyObject((sql) => {
      const before = USER_MIGRATIONS.slice(0, -1);
      Schema.open(sql, before).ensure();
      sql.exec(
        `INSERT INTO reservations (key, tokens, day, month, expires_at, admitted_at)
         VALUES ('grant-1', 10, 'd', 'm', 1, 1234), ('plain', 10, 'd', 'm', 1, NULL)`,
      );
      Schema.open(sql, USER_MIGRATIONS);
      return sql.exec("SELECT at, call, n FROM admissions").toArray();
    });
    expect(window).toEqual([{ at: 1234, call: "grant-1", n: 1 }]);
  });

  it("folds the task object's added columns into their tables", () => {
    expect(squashed(TASK_MIGRATIONS)).toMatch(/working_since TEXT\s*\)/);
  });

  it("rebuilds a stored table WITHOUT ROWID with its rows and indexes: an insert writes one row", async () => {
    const migrations = [
      `CREATE TABLE t (k TEXT PRIMARY KEY, due INTEGER NOT NULL); CREATE INDEX t_due ON t (due);
       CREATE TABLE u (k TEXT PRIMARY KEY, v TEXT)`,
      withoutRowid("t"),
      withoutRowid("u"),
    ];
    const outcome = await inEmptyObject((sql) => {
      Schema.open(sql, migrations.slice(0, 1)).ensure();
      sql.exec("INSERT INTO t (k, due) VALUES ('a', 2), ('b', 1)");
      sql.exec("INSERT INTO u (k, v) VALUES ('x', 'kept')");
      const before = sql.exec("INSERT INTO u (k, v) VALUES ('y', 'two rows')").rowsWritten;
      Schema.open(sql, migrations);
      const after = sql.exec("INSERT INTO u (k, v) VALUES ('z', 'one row')").rowsWritten;
      return {
        before,
        after,
        version: version(sql),
        tables: catalogue(sql),
        t: sql.exec("SELECT k FROM t ORDER BY due").toArray(),
        u: sql.exec("SELECT k, v FROM u ORDER BY k").toArray(),
      };
    });
    expect(outcome.version).toBe(3);
    expect(outcome.tables.t).toMatch(/\)WITHOUTROWID$/);
    expect(outcome.tables.u).toMatch(/\)WITHOUTROWID$/);
    expect(outcome.tables.t_due).toBe("CREATEINDEXt_dueONt(due)");
    expect(Object.keys(outcome.tables)).not.toContain("t__rowid");
    expect(outcome.t).toEqual([{ k: "b" }, { k: "a" }]);
    expect(outcome.u.map((r) => r.k)).toEqual(["x", "y", "z"]);
    expect(outcome.before).toBe(2);
    expect(outcome.after).toBe(1);
  });

  it("brings an object stored at an older version to the newest, and leaves an empty one empty", async () => {
    const upgraded = await inEmptyObject((sql) => {
      const old = Schema.open(sql, TASK_MIGRATIONS.slice(0, 3));
      old.ensure();
      const reopened = Schema.open(sql, TASK_MIGRATIONS);
      const columns = sql
        .exec<{ name: string }>("SELECT name FROM pragma_table_info('task')")
        .toArray()
        .map((c) => c.name);
      return { stored: reopened.stored, version: version(sql), columns };
    });
    expect(upgraded).toMatchObject({ stored: true, version: TASK_MIGRATIONS.length });
    expect(upgraded.columns).toContain("working_since");
    const empty = await inEmptyObject((sql) => {
      const schema = Schema.open(sql, TASK_MIGRATIONS);
      return { stored: schema.stored, tables: Object.keys(catalogue(sql)) };
    });
    expect(empty).toEqual({ stored: false, tables: [] });
  });
});
