/**
 * Rows a Durable Object alone writes, kept in memory: {@link RowCopy} holds what was read from
 * SQLite at first use (a new database starts from a known empty value and reads nothing); the
 * writer updates it after each write, and `forget()` drops it when a transaction rolled back, so
 * the next use reads SQLite again. {@link upsertRow} writes one row by its key.
 */

/** An in-memory copy of some rows of the object's SQLite. */
export class RowCopy<T> {
  readonly #read: () => T;
  #value: { current: T } | null;

  /** `read` loads the rows; `empty`: the value of a new database (nothing is read). */
  constructor(read: () => T, empty?: T) {
    this.#read = read;
    this.#value = empty === undefined ? null : { current: empty };
  }

  /** The rows, read now if they are not in memory. */
  get value(): T {
    this.#value ??= { current: this.#read() };
    return this.#value.current;
  }

  /** Replaces the copy (after writing SQLite). */
  set(value: T): void {
    this.#value = { current: value };
  }

  /** Drops the copy: the next use reads SQLite. */
  forget(): void {
    this.#value = null;
  }
}

type Row = Record<string, SqlStorageValue>;

/** A row typed as the record it is: the query selects each column under its field's name. */
export type RowOf<T> = T & Row;

/** A record from a row whose `jsonColumns` hold JSON text (selected under the fields' names). */
export function withJson<T>(row: Row, jsonColumns: readonly string[]): T {
  const out: Record<string, unknown> = { ...row };
  for (const column of jsonColumns) {
    const text = row[column];
    out[column] = typeof text === "string" ? JSON.parse(text) : null;
  }
  return out as T;
}

/** A copy of the rows `query` selects, each mapped by `toValue` (`fresh`: a new database, empty). */
export function copyOfRows<R extends Row, T>(
  sql: SqlStorage,
  query: string,
  toValue: (row: R) => T,
  fresh: boolean,
): RowCopy<T[]> {
  return new RowCopy(() => sql.exec<R>(query).toArray().map(toValue), fresh ? [] : undefined);
}

/** A copy of the rows `query` selects, by the key `toEntry` gives each (`fresh`: empty). */
export function copyOfMap<R extends Row, T>(
  sql: SqlStorage,
  query: string,
  toEntry: (row: R) => [string, T],
  fresh: boolean,
): RowCopy<Map<string, T>> {
  return new RowCopy(
    () => new Map(sql.exec<R>(query).toArray().map(toEntry)),
    fresh ? new Map<string, T>() : undefined,
  );
}

/**
 * Inserts `row` into `table`, or updates the row with the same `key` columns (all other columns
 * but those in `keep`, which keep the value they were first written with).
 */
export function upsertRow(
  sql: SqlStorage,
  table: string,
  key: readonly string[],
  row: Record<string, SqlStorageValue>,
  keep: readonly string[] = [],
): void {
  const columns = Object.keys(row);
  const updates = columns
    .filter((c) => !key.includes(c) && !keep.includes(c))
    .map((c) => `${c} = excluded.${c}`);
  sql.exec(
    `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
     ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${updates.join(", ")}`,
    ...Object.values(row),
  );
}

/**
 * A store over a Durable Object's SQLite that keeps one copy of its rows ({@link RowCopy}):
 * `sql` for its writes, `copy` for its reads.
 */
export abstract class CopyingStore<T> {
  protected readonly sql: SqlStorage;
  protected readonly copy: RowCopy<T>;

  constructor(sql: SqlStorage, copy: RowCopy<T>) {
    this.sql = sql;
    this.copy = copy;
  }

  /** Drops the copy (after a rollback): the next read takes it from SQLite. */
  forget(): void {
    this.copy.forget();
  }
}
