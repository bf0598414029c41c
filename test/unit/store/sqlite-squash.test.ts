import { describe, expect, it } from "vitest";
import { withoutRowid } from "../../../src/store/sqlite-migrations.ts";
import { squashed, statementsOf } from "../../../src/store/sqlite-squash.ts";

describe("migrations folded into one schema", () => {
  it("folds each added column into its table, last, and keeps every other statement in order", () => {
    const schema = squashed([
      "CREATE TABLE a (id TEXT PRIMARY KEY, n INTEGER CHECK (n > 0)); CREATE INDEX a_n ON a (n)",
      "CREATE TABLE b (x TEXT NOT NULL DEFAULT ';)')",
      "ALTER TABLE a ADD COLUMN note TEXT DEFAULT 'it''s (fine)'",
      "ALTER TABLE b ADD y INTEGER NOT NULL DEFAULT 0;\nALTER TABLE a ADD COLUMN z TEXT",
    ]);
    expect(schema).not.toBeNull();
    const statements = statementsOf(schema ?? "").map((s) => s.replace(/\s+/g, " "));
    expect(statements).toEqual([
      "CREATE TABLE a (id TEXT PRIMARY KEY, n INTEGER CHECK (n > 0), note TEXT DEFAULT 'it''s (fine)', z TEXT )",
      "CREATE INDEX a_n ON a (n)",
      "CREATE TABLE b (x TEXT NOT NULL DEFAULT ';)', y INTEGER NOT NULL DEFAULT 0 )",
    ]);
  });

  it("folds a withoutRowid entry into its table's CREATE TABLE, before or after added columns", () => {
    const schema = squashed([
      "CREATE TABLE a (id TEXT PRIMARY KEY, n INTEGER); CREATE INDEX a_n ON a (n)",
      withoutRowid("a"),
      "ALTER TABLE a ADD COLUMN note TEXT",
    ]);
    expect(statementsOf(schema ?? "").map((s) => s.replace(/\s+/g, " "))).toEqual([
      "CREATE TABLE a (id TEXT PRIMARY KEY, n INTEGER, note TEXT ) WITHOUT ROWID",
      "CREATE INDEX a_n ON a (n)",
    ]);
    // A table it does not know, or one with options already: replayed.
    expect(squashed([withoutRowid("elsewhere")])).toBeNull();
    expect(squashed(["CREATE TABLE s (id TEXT PRIMARY KEY) STRICT", withoutRowid("s")])).toBeNull();
  });

  it("takes dropped indexes and tables out, and leaves out copies from a table it made", () => {
    const schema = squashed([
      "CREATE TABLE a (at INTEGER, call TEXT); CREATE INDEX a_at ON a (at); CREATE TABLE c (x TEXT)",
      "CREATE INDEX c_x ON c (x)",
      "ALTER TABLE a ADD COLUMN more TEXT",
      `CREATE TABLE b (at INTEGER NOT NULL, call TEXT NOT NULL, PRIMARY KEY (at, call)) WITHOUT ROWID;
       INSERT OR IGNORE INTO b (at, call) SELECT at, IFNULL(call, hex(randomblob(8))) FROM a;
       DROP TABLE a`,
      "DROP INDEX IF EXISTS c_x",
    ]);
    expect(statementsOf(schema ?? "").map((s) => s.replace(/\s+/g, " "))).toEqual([
      "CREATE TABLE c (x TEXT)",
      "CREATE TABLE b (at INTEGER NOT NULL, call TEXT NOT NULL, PRIMARY KEY (at, call)) WITHOUT ROWID",
    ]);
    // A SELECT that yields a row out of empty tables is a write: replayed.
    const made = "CREATE TABLE a (n INTEGER); CREATE TABLE b (n INTEGER)";
    expect(squashed([made, "INSERT INTO b (n) SELECT COUNT(*) FROM a"])).toBeNull();
    expect(squashed([made, "INSERT INTO b SELECT n FROM a UNION SELECT 1"])).toBeNull();
    expect(squashed([made, "INSERT INTO b SELECT n FROM elsewhere"])).toBeNull();
  });

  it.each([
    // The usual way to seed a singleton row once.
    "INSERT INTO b (n) SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM a)",
    // A scalar subquery with no outer FROM: one row (NULL).
    "INSERT INTO b (n) SELECT (SELECT n FROM a)",
    // An aggregate: one row ('[]').
    "INSERT INTO b (n) SELECT json_group_array(n) FROM a",
    // An outer join whose other side is a constant: one row.
    "INSERT INTO b (n) SELECT c.v FROM a RIGHT JOIN (SELECT 1 AS v) c ON 1",
    // FROM inside a string literal, no real FROM: one row.
    "INSERT INTO b (n) SELECT length('x FROM a')",
  ])("keeps (replays) a copy that writes a row out of empty tables: %s", (statement) => {
    const made = "CREATE TABLE a (n INTEGER); CREATE TABLE b (n INTEGER)";
    expect(squashed([made, statement])).toBeNull();
  });

  it("gives up (null: replay them) on anything else done to a table", () => {
    expect(squashed(["CREATE TABLE a (id TEXT)", "ALTER TABLE a RENAME TO b"])).toBeNull();
    expect(squashed(["DROP TABLE elsewhere"])).toBeNull();
    expect(squashed(["DROP INDEX elsewhere"])).toBeNull();
    expect(squashed(["CREATE TABLE a (id TEXT)", "INSERT INTO a (id) VALUES ('x')"])).toBeNull();
    expect(squashed(["ALTER TABLE elsewhere ADD COLUMN c TEXT"])).toBeNull();
    const keyed = "CREATE TABLE k (a TEXT, b TEXT, PRIMARY KEY (a, b))";
    expect(squashed([keyed, "CREATE INDEX k_b ON k (b)"])).not.toBeNull();
    // A comment's quotes and semicolons are not read: replayed.
    expect(squashed(["CREATE TABLE c (x TEXT) -- it's", "ALTER TABLE c ADD y TEXT"])).toBeNull();
  });

  it("folds an added column before the table's constraints, where SQLite writes it", () => {
    const keyed =
      "CREATE TABLE k (a TEXT, b TEXT CHECK (b <> ','), PRIMARY KEY (a, b)) WITHOUT ROWID";
    const folded = squashed([keyed, "ALTER TABLE k ADD COLUMN c TEXT"])?.replace(/\s+/g, " ");
    expect(folded).toBe(
      "CREATE TABLE k (a TEXT, b TEXT CHECK (b <> ','), c TEXT , PRIMARY KEY (a, b)) WITHOUT ROWID",
    );
  });

  it("splits statements only at semicolons outside quotes", () => {
    expect(statementsOf("SELECT ';'; SELECT \"a;b\" ;; ")).toEqual(["SELECT ';'", 'SELECT "a;b"']);
  });
});
