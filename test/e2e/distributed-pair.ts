/**
 * Two `npm run dev` instances over one state directory, as two deployments on one account share
 * the R2 bucket and D1: A, a scripted harness, serves every agent; B, on the same model, runs its
 * researcher remotely on A (`DISTRIBUTED_AGENTS=researcher`). B runs under another Worker name, so
 * its Durable Objects keep their own SQLite files (two workerd processes on one object's file meet
 * SQLITE_BUSY). Node only.
 */
import {
  type DevServer,
  freePort,
  freshStateDir,
  type ScriptedHarness,
  startDevServer,
  startScriptedHarness,
} from "./dev-server.ts";

/** The two running instances. */
export interface DistributedPair {
  /** A's harness (its model is B's too). */
  harness: ScriptedHarness;
  a: DevServer;
  b: DevServer;
  /** Stops B, then A and the model. */
  stop(): Promise<void>;
}

/**
 * Starts A with `vars`, then B with `vars` and `bVars` on top. B's registry entry for A's
 * researcher sends A2A_API_KEY when `vars` sets one (then both sides see the same principal).
 */
export async function startDistributedPair(
  vars: Record<string, string> = {},
  bVars: Record<string, string> = {},
): Promise<DistributedPair> {
  const harness = await startScriptedHarness(vars, freshStateDir());
  const a = harness.server;
  try {
    const researcher = {
      url: `${a.url}/agents/researcher/`,
      ...(vars.A2A_API_KEY ? { authSecret: "A2A_API_KEY" } : {}),
    };
    const b = await startDevServer({
      port: await freePort(),
      persistDir: a.persistDir,
      extraArgs: ["--name", "a2a-edge-harness-b"],
      vars: {
        ...harness.modelVars,
        ...vars,
        A2A_AGENTS: JSON.stringify({ researcher }),
        DISTRIBUTED_AGENTS: "researcher",
        ...bVars,
      },
    });
    return {
      harness,
      a,
      b,
      stop: async () => {
        await b.stop();
        await harness.stop();
      },
    };
  } catch (error) {
    await harness.stop();
    throw error;
  }
}
