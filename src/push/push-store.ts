/**
 * A task's push notification configs and its delivery queue, in the task object's SQLite. A
 * delivery row is written in the same transaction as the status change it reports, so a change
 * is never lost between the state and its notification; rows stay as the record of each attempt.
 * A body long enough to grow with the answer (a Task with its artifacts) is stored in pieces
 * (store/long-values.ts).
 */
import { isLong, LongValues } from "../store/long-values.ts";
import { CopyingStore, copyOfRows, type RowOf, upsertRow } from "../store/row-copy.ts";
import type { PushConfig } from "./push-config.ts";

/** Where a delivery stands. */
export type DeliveryStatus = "pending" | "delivered" | "failed";

/** One notification to one config, and its attempts. */
export interface Delivery {
  seq: number;
  configId: string;
  url: string;
  state: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  firstAttemptAt: number | null;
  lastAttemptAt: number | null;
  deliveredAt: number | null;
  nextAt: number;
}

/** A config's columns, as the fields of {@link PushConfig}. */
const CONFIG_FIELDS = `id, url, token, auth_scheme AS authScheme, auth_credentials AS authCredentials,
  protocol, created_at AS createdAt`;

/** A delivery's columns, as the fields of {@link Delivery}. */
const DELIVERY_FIELDS = `seq, config_id AS configId, url, state, status, attempts,
  last_status AS lastStatus, last_error AS lastError, created_at AS createdAt,
  first_attempt_at AS firstAttemptAt, last_attempt_at AS lastAttemptAt,
  delivered_at AS deliveredAt, next_at AS nextAt`;

/** A queued delivery with what to send. */
export interface Outgoing extends Delivery {
  body: string;
  contentType: string;
}

/** The key of a delivery's long body (store/long-values.ts). */
const bodyKey = (seq: number) => `push_deliveries:${seq}`;

/** Configs and deliveries of one task. */
export class PushStore extends CopyingStore<PushConfig[]> {
  readonly #long: LongValues;

  /** `fresh`: the database is new, so there are no configs. */
  constructor(sql: SqlStorage, fresh = false) {
    const query = `SELECT ${CONFIG_FIELDS} FROM push_configs ORDER BY created_at, id`;
    super(
      sql,
      copyOfRows(sql, query, (row: RowOf<PushConfig>) => row, fresh),
    );
    this.#long = new LongValues(sql);
  }

  configs(): PushConfig[] {
    return [...this.copy.value];
  }

  config(id: string): PushConfig | null {
    const rows = this.sql.exec<RowOf<PushConfig>>(
      `SELECT ${CONFIG_FIELDS} FROM push_configs WHERE id = ?`,
      id,
    );
    return rows.toArray()[0] ?? null;
  }

  /** Adds or replaces a config (a client may set one id again to change it). */
  put(config: PushConfig): void {
    upsertRow(
      this.sql,
      "push_configs",
      ["id"],
      {
        id: config.id,
        url: config.url,
        token: config.token,
        auth_scheme: config.authScheme,
        auth_credentials: config.authCredentials,
        protocol: config.protocol,
        created_at: config.createdAt,
      },
      ["created_at"],
    );
    this.copy.forget();
  }

  /** Removes a config; its pending deliveries are dropped (recorded as failed). */
  delete(id: string): void {
    this.sql.exec("DELETE FROM push_configs WHERE id = ?", id);
    this.copy.forget();
    this.sql.exec(
      "UPDATE push_deliveries SET status = 'failed', last_error = 'config deleted' WHERE config_id = ? AND status = 'pending'",
      id,
    );
  }

  /** Queues one notification per config body (`bodies` maps a config id to its body). */
  enqueue(
    state: string,
    items: Array<{ config: PushConfig; body: string; contentType: string }>,
    now: number,
  ): void {
    for (const { config, body, contentType } of items) {
      // A long body's key is its row's number, known once the row is in: its pieces follow.
      const { seq } = this.sql
        .exec<{ seq: number }>(
          `INSERT INTO push_deliveries (config_id, url, state, body, content_type, status, attempts, next_at, created_at)
           VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?) RETURNING seq`,
          config.id,
          config.url,
          state,
          isLong(body) ? "" : body,
          contentType,
          now,
          now,
        )
        .one();
      this.#long.put(bodyKey(seq), body);
    }
  }

  /** The oldest pending delivery of each config (deliveries to one config go out in order). */
  heads(): Outgoing[] {
    return this.sql
      .exec<RowOf<Outgoing>>(
        `SELECT ${DELIVERY_FIELDS}, body, content_type AS contentType FROM push_deliveries
         WHERE seq IN
           (SELECT MIN(seq) FROM push_deliveries WHERE status = 'pending' GROUP BY config_id)
         ORDER BY seq`,
      )
      .toArray()
      .map((row) => ({ ...row, body: this.#long.get(bodyKey(row.seq), row.body) }));
  }

  /** Records an attempt's outcome. */
  record(
    seq: number,
    outcome: {
      status: DeliveryStatus;
      attempts: number;
      httpStatus: number | null;
      error: string | null;
      nextAt: number;
      at: number;
    },
  ): void {
    this.sql.exec(
      `UPDATE push_deliveries SET status = ?, attempts = ?, last_status = ?, last_error = ?, next_at = ?,
         first_attempt_at = COALESCE(first_attempt_at, ?), last_attempt_at = ?,
         delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END
       WHERE seq = ?`,
      outcome.status,
      outcome.attempts,
      outcome.httpStatus,
      outcome.error,
      outcome.nextAt,
      outcome.at,
      outcome.at,
      outcome.status,
      outcome.at,
      seq,
    );
  }

  /** Every delivery, oldest first (the record the owner and admins can read). */
  deliveries(): Delivery[] {
    return this.sql
      .exec<RowOf<Delivery>>(`SELECT ${DELIVERY_FIELDS} FROM push_deliveries ORDER BY seq`)
      .toArray();
  }
}
