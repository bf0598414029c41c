/**
 * Reachability of the remote A2A agents of the registry, each checked by reading its Agent Card
 * (three seconds at most, in parallel, bypassing the card cache), for `GET /health/deep`.
 */
import type { Context } from "hono";
import { loadConfig } from "../config/config.ts";
import { newTraceId } from "../platform/ids.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { discoverCard } from "./client.ts";
import { remoteAgentsFor } from "./handle.ts";

const TIMEOUT_MS = 3_000;

/** One agent's check. */
export interface ReachabilityReport {
  name: string;
  distributed: boolean;
  reachable: boolean;
  ms: number;
  card?: { name: string; version: string };
  error?: string;
}

/** Each registry agent's reachability. */
export async function remoteReachability(c: Context<AppEnv>): Promise<ReachabilityReport[]> {
  const config = loadConfig(c.env);
  const remote = remoteAgentsFor(c.env, config, "health", newTraceId());
  return Promise.all(
    Object.values(config.network.agents).map(async (entry): Promise<ReachabilityReport> => {
      const distributed = config.network.distributed.includes(entry.name);
      const started = Date.now();
      const connection = remote.connect(entry.name);
      if (!connection.ok)
        return { name: entry.name, distributed, reachable: false, ms: 0, error: connection.error };
      try {
        const card = await Promise.race([
          discoverCard(connection.fetch, connection.target, true),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error(`no answer in ${TIMEOUT_MS} ms`)), TIMEOUT_MS),
          ),
        ]);
        return {
          name: entry.name,
          distributed,
          reachable: true,
          ms: Date.now() - started,
          card: { name: card.name, version: card.version },
        };
      } catch (error) {
        return {
          name: entry.name,
          distributed,
          reachable: false,
          ms: Date.now() - started,
          error: error instanceof Error ? error.message : String(error),
        };
      }
    }),
  );
}
