/**
 * `--export` of `npm run bench` and `npm run bench:cpu`: this harness a second time with its
 * OTLP/HTTP trace export on, to a receiver on 127.0.0.1 (test/fake-collector, which answers at
 * once and counts spans) with the export's defaults (http/protobuf, no headers), and the check
 * that export really ran: the spans the receiver got per task the bench sent that server, read
 * once every task's export has arrived (a task posts its spans once, when it ends) or none has
 * arrived for 5 s. Node only.
 */
import { type FakeCollector, startFakeCollector } from "../test/fake-collector/server.ts";
import type { Target } from "./a2a-calls.ts";

/** The name of the export-on server in the tables. */
export const EXPORT_ON = "ours, export on";

/** What the receiver got from the export-on server. */
export interface ExportCheck {
  /** Tasks the bench sent the export-on server. */
  tasks: number;
  /** Export requests and the spans in them. */
  requests: number;
  spans: number;
  spansPerTask: number;
  /** Requests the receiver could not read. */
  malformed: number;
}

/** A receiver for the export and the vars that point a harness at it. */
export async function exportReceiver(): Promise<{
  collector: FakeCollector;
  vars: Record<string, string>;
}> {
  const collector = await startFakeCollector();
  return { collector, vars: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } };
}

/** The tasks a target counts (see {@link Target.sent}). */
export function counted<T extends Target>(target: T): T & { sent: { tasks: number } } {
  return { ...target, sent: { tasks: 0 } };
}

/** What `collector` got from `target`, once its tasks' exports are in (see the header). */
export async function exportCheck(collector: FakeCollector, target: Target): Promise<ExportCheck> {
  const tasks = target.sent?.tasks ?? 0;
  let last = collector.counts();
  let lastChange = Date.now();
  while (last.requests < tasks && Date.now() - lastChange < 5_000) {
    await new Promise((r) => setTimeout(r, 100));
    const now = collector.counts();
    if (now.requests !== last.requests) lastChange = Date.now();
    last = now;
  }
  return {
    tasks,
    requests: last.requests,
    spans: last.spans,
    spansPerTask: tasks > 0 ? last.spans / tasks : 0,
    malformed: last.malformed,
  };
}

/** One line: the spans per task, or that export did not run. */
export function printExportCheck(check: ExportCheck): void {
  const got = `${check.spans} spans in ${check.requests} requests for ${check.tasks} tasks${check.malformed > 0 ? `, ${check.malformed} requests unreadable` : ""}`;
  if (check.spans === 0)
    console.log(`\n**export did not run**: the receiver got no spans (${got})`);
  else
    console.log(
      `\nexport check (${EXPORT_ON}): ${check.spansPerTask.toFixed(2)} spans per task (${got}${check.requests < check.tasks ? `; ${check.tasks - check.requests} tasks exported nothing` : ""})`,
    );
}
