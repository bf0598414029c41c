/**
 * The main module of run_code's transpiler isolate (scripts/build-assets.ts bundles it, with
 * sucrase and acorn, into a static asset; transpiler.ts loads it into a Worker Loader isolate of
 * its own). It answers one POST: `{ files: SourceFile[], names: GuardNames }` in, one
 * `Transpiled` per file out, in order (transpile.ts's `toModule`). Its caller is only the
 * harness (the isolate has no network and is reachable only through its Worker Loader stub).
 */
import type { GuardNames, SourceFile, Transpiled } from "../../loop/contracts.ts";
import { toModule } from "./transpile.ts";

/** The request the harness sends. */
export interface TranspileRequest {
  files: SourceFile[];
  names: GuardNames;
}

export default {
  async fetch(request: Request): Promise<Response> {
    // The harness's own request (transpiler.ts builds it); nothing else can reach this isolate.
    const { files, names } = (await request.json()) as TranspileRequest;
    const out: Transpiled[] = files.map((file) =>
      toModule(file.path, file.source, names, { script: file.script === true }),
    );
    return Response.json(out);
  },
};
