/**
 * The names of the user objects (the USERS namespace): one per user's counters, one per client IP
 * for unauthenticated callers, one per trusted issuer for the budgets all its delegated callers
 * share, and the failed-credential counters of a client address. A client IP is named as
 * client-network.ts reads it: IPv4 by address, IPv6 by its /64. Every place that reaches one names
 * it through here, so the auth layer and the limits layer always reach the same object. Pure.
 */
import { clientNetwork } from "./client-network.ts";

/** The counters (rate, streams, budgets, replay records) of user or principal `id`. */
export const userCounters = (id: string): string => `user:${id}`;

/** The counters of unauthenticated callers from `ip` (an IPv6 address by its /64). */
export const ipCounters = (ip: string | null): string => `ip:${clientNetwork(ip) ?? "unknown"}`;

/** The failed credentials from client `ip` (an IPv6 address by its /64). */
export const failuresFromIp = (ip: string | null): string =>
  `auth:ip:${clientNetwork(ip) ?? "unknown"}`;

/** The budgets every caller delegated by trusted issuer `issuer` spends together. */
export const issuerCounters = (issuer: string): string => `issuer:${issuer}`;
