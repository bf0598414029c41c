/**
 * The Worker's code as deployed: src/worker.ts bundled by esbuild exactly as wrangler bundles it
 * (platform browser, conditions workerd/worker/browser, node: and cloudflare: modules left to
 * the runtime, wrangler.toml's [alias] applied), less what zod's classic API exports on its one
 * namespace (which no bundler can shake out) and nothing here uses: its 60 locales (`z.locales`;
 * nothing uses any but English, zod's default), ~260 KB of the bundle, and its schema compiler and
 * JSON Schema importer (`z.compile`, `z.fromJSONSchema`: src/platform/zod-absent.ts), ~45 KB;
 * and the scripted model, a local stand-in for the Messages API that a deploy never turns on
 * (src/model/scripted-absent.ts), ~20 KB. Every other input is the same as wrangler's own bundle (docs/benchmarks.md, Cold start, says how
 * that was checked). The deploy script points the plan's configuration at this file; wrangler
 * bundles it again (its nodejs_compat plugins, defines and minification apply then) and chains the
 * source map back to src/.
 */
import { join, resolve } from "node:path";
import { build, type Plugin } from "esbuild";

/** Replaces zod's locales index with English alone (the only locale zod configures or we use). */
const englishOnly: Plugin = {
  name: "zod-english-only",
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: "zod-locales-english-only", namespace: "zod-locales" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "zod-locales" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: process.cwd(),
    }));
  },
};

/** zod's modules that src/platform/zod-absent.ts stands in for, as zod's modules import them. */
const ZOD_ABSENT = /^\.\/(compile|from-json-schema)\.js$/;

/** Puts src/platform/zod-absent.ts in place of zod's compiler and JSON Schema importer. */
const zodUnusedApisOut = (root: string): Plugin => ({
  name: "zod-unused-apis-out",
  setup(builder) {
    builder.onResolve({ filter: ZOD_ABSENT }, (args) =>
      /[\\/]zod[\\/]v4[\\/](core|classic)[\\/]/.test(args.importer)
        ? { path: join(root, "src", "platform", "zod-absent.ts") }
        : undefined,
    );
  },
});

/** The scripted model's entry, as src/model/client.ts imports it when first used. */
const SCRIPTED_ENTRY = /^\.\/scripted\/messages-api\.ts$/;

/**
 * Puts src/model/scripted-absent.ts in place of the scripted model (a local stand-in for the
 * Messages API: npm run dev and tests only; a deploy refuses SCRIPTED_MODEL on,
 * scripts/deploy-config.ts).
 */
const scriptedModelOut = (root: string): Plugin => ({
  name: "scripted-model-out",
  setup(builder) {
    builder.onResolve({ filter: SCRIPTED_ENTRY }, (args) =>
      /[\\/]src[\\/]model[\\/]client\.ts$/.test(args.importer)
        ? { path: join(root, "src", "model", "scripted-absent.ts") }
        : undefined,
    );
  },
});

/**
 * Bundles the Worker into `outDir`/worker.js (with its source map); `alias` is wrangler.toml's
 * [alias], its paths relative to `root`. Returns the file's name, relative to `outDir`.
 */
export async function bundleWorker(
  root: string,
  outDir: string,
  alias: Record<string, string> = {},
): Promise<string> {
  await build({
    absWorkingDir: root,
    entryPoints: [join(root, "src", "worker.ts")],
    outfile: join(outDir, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*", "node:*"],
    alias: Object.fromEntries(Object.entries(alias).map(([from, to]) => [from, resolve(root, to)])),
    sourcemap: "linked",
    logLevel: "error",
    plugins: [englishOnly, zodUnusedApisOut(root), scriptedModelOut(root)],
  });
  return "worker.js";
}
