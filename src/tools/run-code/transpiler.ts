/**
 * run_code's transpiler, outside the Worker's bundle: sucrase and acorn (transpile.ts) run in a
 * Worker Loader isolate of their own, whose code is a static asset (scripts/build-assets.ts,
 * TRANSPILER_ASSET) read through the ASSETS binding the first time an isolate is made. The
 * loader keeps it by name (the asset's hash), so later runs reuse a warm isolate; no network, a
 * CPU limit. The Worker itself stays free of the transpiler's ~330 KB (docs/benchmarks.md, Cold
 * start).
 */
import { z } from "zod";
import type { GuardNames, Transpile } from "../../loop/contracts.ts";
import { randomHex } from "../../platform/hex.ts";
import { lazy } from "../../utils/lazy.ts";
import { TRANSPILER_ASSET } from "./transpiler-asset.generated.ts";
import type { TranspileRequest } from "./transpiler-isolate.ts";

const COMPATIBILITY_DATE = "2026-11-02";
/** CPU for one call: transpiling the largest program a run loads (run_code's byte cap) fits. */
const TRANSPILER_CPU_MS = 5_000;

const answerSchema = lazy(() =>
  z.array(
    z.union([
      z.object({ ok: z.literal(true), js: z.string() }),
      z.object({ ok: z.literal(false), error: z.string() }),
    ]),
  ),
);

/** Names no user code can know: a random part per run. */
export function guardNames(): GuardNames {
  const nonce = randomHex(8);
  return { guard: `__a2a_guard_${nonce}`, ran: `__a2a_ran_${nonce}` };
}

/** The transpiler, run in its own isolate loaded from the ASSETS binding. */
export function isolateTranspiler(loader: WorkerLoader, assets: Fetcher): Transpile {
  return async (files, names) => {
    const worker = loader.get(`a2a-transpiler:${TRANSPILER_ASSET}`, async () => ({
      compatibilityDate: COMPATIBILITY_DATE,
      mainModule: "transpiler.js",
      modules: { "transpiler.js": await assetText(assets) },
      globalOutbound: null,
      limits: { cpuMs: TRANSPILER_CPU_MS },
    }));
    const body: TranspileRequest = { files, names };
    const response = await worker
      .getEntrypoint()
      .fetch("http://transpiler/", { method: "POST", body: JSON.stringify(body) });
    if (!response.ok)
      throw new Error(`the transpiler failed (HTTP ${response.status}): ${await response.text()}`);
    const answer = answerSchema().safeParse(await response.json());
    if (!answer.success || answer.data.length !== files.length)
      throw new Error("the transpiler answered in an unexpected shape");
    return answer.data;
  };
}

/** The transpiler's module source, from the static assets. */
async function assetText(assets: Fetcher): Promise<string> {
  const response = await assets.fetch(new URL(TRANSPILER_ASSET, "https://assets.invalid"));
  if (!response.ok)
    throw new Error(
      `run_code's transpiler asset ${TRANSPILER_ASSET} is missing (HTTP ${response.status}): run npm run agents`,
    );
  return response.text();
}
