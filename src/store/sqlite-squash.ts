/**
 * What a list of schema migrations leaves, written as one schema: every statement in order, each
 * `ALTER TABLE t ADD COLUMN c` folded into t's `CREATE TABLE` (the column after the last one,
 * before any table constraint, where SQLite adds it), and each `withoutRowid(t)` entry (sqlite-migrations.ts) as t's `CREATE TABLE ... WITHOUT
 * ROWID`; a `DROP INDEX` takes its index out, a `DROP TABLE` its table and the table's indexes, and
 * a plain copy (`INSERT INTO ... SELECT columns FROM t`) of rows out of a table the migrations made
 * is left out (in a new database every such table is empty, so it copies nothing): a table is
 * replaced by a new one, its rows copied, in a migration this folds. A new object is created from
 * it in one batch; replaying each ALTER would make SQLite re-read its whole schema once per ALTER.
 * Null when a migration does anything else to a table it made (renames, writes rows otherwise), or
 * holds an SQL comment (whose quotes and semicolons this reader does not skip): such a list is
 * replayed as it is. Pure: no I/O.
 */

/** The statements of `sql`, split at the semicolons outside quoted strings and names. */
export function statementsOf(sql: string): string[] {
  const statements: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === "`") quote = ch;
    else if (ch === ";") {
      statements.push(sql.slice(start, i));
      start = i + 1;
    }
  }
  statements.push(sql.slice(start));
  return statements.map((s) => s.trim()).filter((s) => s !== "");
}

const CREATE_TABLE = /^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?["`]?(\w+)["`]?\s*\(/i;
const ADD_COLUMN = /^ALTER\s+TABLE\s+["`]?(\w+)["`]?\s+ADD\s+(?:COLUMN\s+)?([\s\S]+)$/i;
const CREATE_INDEX =
  /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?["`]?(\w+)["`]?\s+ON\s+["`]?(\w+)["`]?/i;
const DROP = /^DROP\s+(TABLE|INDEX)\s+(?:IF\s+EXISTS\s+)?["`]?(\w+)["`]?$/i;
/**
 * A plain copy of a table's rows: `INSERT [OR x] INTO t [(columns)] SELECT list FROM source
 * [WHERE ...]`, one SELECT and one FROM, nothing quoted. Only such a statement is known to insert
 * nothing when `source` is empty; anything else (a join, a subquery, EXISTS, an aggregate, a
 * compound) may insert a row out of empty tables.
 */
const COPY =
  /^INSERT\s+(?:OR\s+\w+\s+)?INTO\s+\w+\s*(?:\([\w\s,]*\))?\s*SELECT\s+([\w\s,()*]+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+[\w\s=<>!().,?]+)?$/i;
/** The functions a copy's select list may call: each gives one value per row, none a row of its own. */
const ROW_FUNCTIONS = new Set(["ifnull", "coalesce", "lower", "upper", "hex", "randomblob", "abs"]);
/** Words that make a SELECT more than a plain copy. */
const NOT_PLAIN = /\b(?:SELECT|FROM|JOIN|EXISTS|UNION|EXCEPT|INTERSECT|VALUES|GROUP|HAVING)\b/gi;

/**
 * The migration entry that rebuilds `table` as a WITHOUT ROWID table (it must have a PRIMARY
 * KEY): sqlite-migrations.ts runs it on stored objects, {@link squashed} folds it for new ones.
 */
export function withoutRowid(table: string): string {
  return `REBUILD ${table} WITHOUT ROWID`;
}

/** The table a {@link withoutRowid} entry names, or null for SQL. */
export function rebuiltTable(statement: string): string | null {
  return /^REBUILD (\w+) WITHOUT ROWID$/.exec(statement.trim())?.[1] ?? null;
}

/** The index of the parenthesis that closes the one at `open`, outside quotes; -1 if none. */
function closing(sql: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < sql.length; i++) {
    const ch = sql[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === "`") quote = ch;
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i;
  }
  return -1;
}

/** A table constraint (not a column) begins the item. */
const TABLE_CONSTRAINT = /^(CONSTRAINT|PRIMARY\s+KEY|UNIQUE|CHECK|FOREIGN\s+KEY)\b/i;

/**
 * Where an added column goes in the column list from `open` to `end`: at the comma before the
 * first table constraint (at its own level), or at `end` when there is none.
 */
function columnsEnd(sql: string, open: number, end: number): number {
  let depth = 0;
  let quote: string | null = null;
  let start = open + 1;
  for (let i = open + 1; i <= end; i++) {
    const ch = sql[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === "`") quote = ch;
    else if (ch === "(") depth++;
    else if (ch === ")" && depth > 0) depth--;
    else if ((ch === "," && depth === 0) || i === end) {
      if (TABLE_CONSTRAINT.test(sql.slice(start, i).trim())) return start - 1;
      start = i + 1;
    }
  }
  return end;
}

/**
 * The schema so far: its statements in order (a dropped one left empty), each table's and each
 * index's place among them, and each index's table.
 */
interface Folding {
  out: string[];
  tables: Map<string, number>;
  indexes: Map<string, { at: number; table: string }>;
}

/** Takes a dropped table (and its indexes) or index out of the schema; false if it is unknown. */
function drop(schema: Folding, kind: string, name: string): boolean {
  const key = name.toLowerCase();
  if (kind.toUpperCase() === "INDEX") {
    const index = schema.indexes.get(key);
    if (!index) return false;
    schema.out[index.at] = "";
    schema.indexes.delete(key);
    return true;
  }
  const at = schema.tables.get(key);
  if (at === undefined) return false;
  schema.out[at] = "";
  schema.tables.delete(key);
  for (const [index, { table }] of schema.indexes) if (table === key) drop(schema, "INDEX", index);
  return true;
}

/**
 * Whether `statement` is a plain copy (see {@link COPY}) of rows out of a table the schema made:
 * empty in a new database, so the copy inserts nothing there.
 */
function copiesFromMade(schema: Folding, statement: string): boolean {
  const copy = COPY.exec(statement);
  const list = copy?.[1];
  const from = copy?.[2];
  if (list === undefined || from === undefined || !schema.tables.has(from.toLowerCase()))
    return false;
  const calls = [...list.matchAll(/(\w+)\s*\(/g)].map((m) => (m[1] ?? "").toLowerCase());
  const words = statement.match(NOT_PLAIN) ?? [];
  return calls.every((name) => ROW_FUNCTIONS.has(name)) && words.length === 2;
}

/** `migrations` as one schema (see the file's header), or null when they cannot be folded. */
export function squashed(migrations: readonly string[]): string | null {
  if (migrations.some((m) => m.includes("--") || m.includes("/*"))) return null;
  const schema: Folding = { out: [], tables: new Map(), indexes: new Map() };
  const { out, tables } = schema;
  for (const statement of migrations.flatMap(statementsOf)) {
    const dropped = DROP.exec(statement);
    if (dropped?.[1] && dropped[2]) {
      if (!drop(schema, dropped[1], dropped[2])) return null;
      continue;
    }
    if (copiesFromMade(schema, statement)) continue;
    const rebuilt = rebuiltTable(statement);
    if (rebuilt !== null) {
      const at = tables.get(rebuilt.toLowerCase());
      const create = at === undefined ? undefined : out[at];
      // A table with options already (WITHOUT ROWID, STRICT) is left to the replay.
      if (at === undefined || create === undefined || !create.trimEnd().endsWith(")")) return null;
      out[at] = `${create} WITHOUT ROWID`;
      continue;
    }
    const table = CREATE_TABLE.exec(statement);
    if (table?.[1]) {
      tables.set(table[1].toLowerCase(), out.length);
      out.push(statement);
      continue;
    }
    const index = CREATE_INDEX.exec(statement);
    if (index?.[1] && index[2]) {
      schema.indexes.set(index[1].toLowerCase(), { at: out.length, table: index[2].toLowerCase() });
      out.push(statement);
      continue;
    }
    const added = ADD_COLUMN.exec(statement);
    const at = added?.[1] ? tables.get(added[1].toLowerCase()) : undefined;
    const create = at === undefined ? undefined : out[at];
    if (!added?.[2] || at === undefined || create === undefined) return null;
    const open = create.indexOf("(");
    const end = closing(create, open);
    if (end < 0) return null;
    const place = columnsEnd(create, open, end);
    out[at] = `${create.slice(0, place).trimEnd()},\n  ${added[2].trim()}\n${create.slice(place)}`;
  }
  return out.filter((statement) => statement !== "").join(";\n");
}
