/**
 * The Worker isolate's memory under load, for `npm run bench:deployed -- --memory N`: on a server
 * under `wrangler dev` started with `--inspector-port`, the isolate's JavaScript heap
 * (`Runtime.getHeapUsage` through wrangler's inspector proxy: V8's used and allocated heap) and
 * the resident memory of the workerd process that runs it (`/proc/<pid>/status` VmRSS; Linux only)
 * idle after a warm-up and a full GC (a heap snapshot, `HeapProfiler.takeHeapSnapshot`, whose
 * chunks are dropped: workerd never answers `HeapProfiler.collectGarbage`), while `clients` concurrent
 * clients send `tasks` one-turn blocking tasks (sampled every 50 ms: the peak and the mean), and
 * once they are all done and the process is quiet, before and after a full GC. Under `wrangler
 * dev` the Worker and every Durable Object share that one isolate. Node only.
 */
import { readFileSync } from "node:fs";
import { send } from "./a2a-calls.ts";
import { type CpuTarget, quiet } from "./cpu-bench.ts";
import { connectInspector, type Inspector, inspectorTargets, workerdPid } from "./devtools.ts";

/** One reading, in MB (null: not readable here). */
export interface MemoryReading {
  /** V8's used heap (live objects and garbage not yet collected). */
  heapUsed: number;
  /** The heap V8 has allocated. */
  heapTotal: number;
  /** ArrayBuffers' backing stores, outside the heap (they count against an isolate's memory too). */
  buffers: number;
  /** The workerd process's resident memory (all its isolates: miniflare's simulators too). */
  rss: number | null;
}

/** What {@link memoryUnderLoad} measured. */
export interface MemoryReport {
  clients: number;
  tasks: number;
  /** Tasks that did not come back completed. */
  failed: number;
  idle: MemoryReading;
  /** The largest of each figure over the samples under load (not necessarily one sample's). */
  peak: MemoryReading;
  mean: MemoryReading;
  samples: number;
  /** Once the load is over and the process quiet, before a GC and after one. */
  after: MemoryReading;
  afterGc: MemoryReading;
}

const MB = 1024 * 1024;

/** The process's resident memory (MB), or null. */
function rssMb(pid: number | null): number | null {
  if (pid === null) return null;
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return kb === undefined ? null : Number(kb) / 1024;
}

async function reading(worker: Inspector, pid: number | null): Promise<MemoryReading> {
  const heap = await worker.call<{
    usedSize: number;
    totalSize: number;
    backingStorageSize?: number;
  }>("Runtime.getHeapUsage");
  return {
    heapUsed: heap.usedSize / MB,
    heapTotal: heap.totalSize / MB,
    buffers: (heap.backingStorageSize ?? Number.NaN) / MB,
    rss: rssMb(pid),
  };
}

/** A reading after a full GC: a heap snapshot collects first (its chunks are ignored). */
async function collected(worker: Inspector, pid: number | null): Promise<MemoryReading> {
  await worker.call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  return reading(worker, pid);
}

/** Of each figure, the largest or the mean over `xs`. */
function fold(xs: MemoryReading[], how: "max" | "mean"): MemoryReading {
  const of = (pick: (r: MemoryReading) => number | null): number | null => {
    const values = xs.map(pick).filter((x): x is number => x !== null);
    if (values.length === 0) return null;
    return how === "max"
      ? Math.max(...values)
      : values.reduce((sum, x) => sum + x, 0) / values.length;
  };
  return {
    heapUsed: of((r) => r.heapUsed) ?? Number.NaN,
    heapTotal: of((r) => r.heapTotal) ?? Number.NaN,
    buffers: of((r) => r.buffers) ?? Number.NaN,
    rss: of((r) => r.rss),
  };
}

/** Measures `target`'s isolate idle, under `clients` concurrent clients sending `tasks`, after. */
export async function memoryUnderLoad(
  target: CpuTarget,
  clients: number,
  tasks: number,
  warmup = 20,
): Promise<MemoryReport> {
  const pid = workerdPid(target.inspectorPort);
  const [proxied] = await inspectorTargets(target.inspectorPort);
  if (!proxied) throw new Error(`${target.name}: no inspector on port ${target.inspectorPort}`);
  const worker = await connectInspector(proxied.webSocketDebuggerUrl);
  try {
    for (let i = 0; i < warmup; i++) await send(target);
    await quiet(pid, 0);
    const idle = await collected(worker, pid);
    const samples: MemoryReading[] = [];
    let running = true;
    const sampler = (async () => {
      while (running) {
        samples.push(await reading(worker, pid));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < tasks) {
          next++;
          if (!(await send(target).catch(() => false))) failed++;
        }
      }),
    );
    running = false;
    await sampler;
    await quiet(pid, 0);
    const after = await reading(worker, pid);
    return {
      clients,
      tasks,
      failed,
      idle,
      peak: fold(samples, "max"),
      mean: fold(samples, "mean"),
      samples: samples.length,
      after,
      afterGc: await collected(worker, pid),
    };
  } finally {
    worker.close();
  }
}
