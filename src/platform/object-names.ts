/**
 * The names of the user objects (the USERS namespace): one per user's counters, one per client IP
 * for unauthenticated callers, and the failed-credential counters of a client IP and of a token
 * prefix. Every place that reaches one names it through here, so the auth layer and the limits
 * layer always reach the same object. Pure.
 */

/** The counters (rate, streams, budgets, replay records) of user or principal `id`. */
export const userCounters = (id: string): string => `user:${id}`;

/** The counters of unauthenticated callers from `ip`. */
export const ipCounters = (ip: string | null): string => `ip:${ip ?? "unknown"}`;

/** The failed credentials from client `ip`. */
export const failuresFromIp = (ip: string | null): string => `auth:ip:${ip ?? "unknown"}`;

/** The failed credentials that begin with `prefix`. */
export const failuresOfPrefix = (prefix: string): string => `auth:token:${prefix}`;
