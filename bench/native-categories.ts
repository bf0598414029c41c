/**
 * What a native CPU sample of workerd was doing, from its call stack (`perf script`'s frames,
 * innermost first): the innermost frame that names a part of the runtime decides (SQLite, RPC,
 * streams, tracing, object creation, HTTP, JavaScript, the garbage collector, the compiler);
 * allocation and promise plumbing are looked through to their caller; a sample in the kernel
 * counts as the kernel's (system calls, page faults). Pure: no I/O.
 */

/** One frame of a sample: the symbol and the object file it is in. */
export interface Frame {
  symbol: string;
  dso: string;
}

/** The categories, in the order the tables print them. */
export const CATEGORIES = [
  "JavaScript (every isolate)",
  "SQLite (objects' storage and the simulators')",
  "kernel (system calls, page faults)",
  "tracing (spans, the observability tail)",
  "RPC between Worker and objects",
  "HTTP, fetch, sockets",
  "streams",
  "object creation",
  "V8 garbage collector",
  "V8 compiler",
  "runtime: event loop, bindings glue",
] as const;

export type Category = (typeof CATEGORIES)[number];

const RULES: ReadonlyArray<[Category, RegExp]> = [
  [
    "V8 garbage collector",
    /v8::internal::(Heap\b|Heap::|Scavenger|MarkCompact|MinorMark|Sweeper|ConcurrentMarking|MarkingVisitor)|cppgc::internal::(Marker|Sweeper)/,
  ],
  [
    "V8 compiler",
    /v8::internal::(Compiler|Parser|PreParser|Scanner|Maglev|compiler::|baseline::|Baseline|CodeGenerator|Assembler)/,
  ],
  [
    "SQLite (objects' storage and the simulators')",
    /^sqlite3|^yy_|walChecksum|^unix(Open|Sync|Write|Read)|workerd::Sqlite|workerd::api::SqlStorage|workerd::ActorSqlite/,
  ],
  [
    "tracing (spans, the observability tail)",
    /TailStream|workerd::tracing|Tracer\b|TraceSpan|UserTraceSpan|Tracing::/,
  ],
  [
    "object creation",
    /worker_new_actor|Worker::Actor::Actor|Worker::Actor::Impl::Impl|ActorCache|newActor|createEntrypoint|ensureConstructed/,
  ],
  [
    "RPC between Worker and objects",
    /JsRpc|jsg::Serializer|jsg::Deserializer|serializeJsValue|deserializeJsValue|capnp::|workerd::rpc::/,
  ],
  [
    "streams",
    /workerd::api::(ReadableStream|WritableStream|TransformStream|IdentityTransform|ReaderImpl|WritableImpl|ReadableImpl|DrainingReader|ReadableByteStream|Pipe)|pumpTo/,
  ],
  [
    "HTTP, fetch, sockets",
    /Http|fetchImpl|Fetcher::|AsyncIoStream|Socket|NetworkAddress|Request::constructor|Response::constructor|Headers::/,
  ],
  [
    "JavaScript (every isolate)",
    /^\[unknown\]$|^Builtins_|v8::internal::(Runtime_|Builtin_|Interpreter|Json|FastJson|String|LookupIterator|Factory|JSObject|Map::|KeyAccumulator|Elements|Dictionary|Transition)|JSEntry|^v8::(Object|String|Function|JSON|Value)::/,
  ],
];

/** Frames that only serve their caller: allocation, copying, promise plumbing. */
const THROUGH =
  /tcmalloc|TCMalloc|^__mem|^__str|malloc|^free$|operator new|operator delete|^kj::_::|^kj::(Own|Array|heap|str|Vector|String|refcounted|Refcounted|Maybe|Function)|Disposer/;

/** The category of one sample (frames innermost first). */
export function categoryOf(frames: readonly Frame[]): Category {
  if (frames[0]?.dso.includes("kernel")) return "kernel (system calls, page faults)";
  for (const { symbol } of frames) {
    if (THROUGH.test(symbol)) continue;
    for (const [category, rule] of RULES) if (rule.test(symbol)) return category;
  }
  return "runtime: event loop, bindings glue";
}

/** Counts the samples of `perf script` output by category. */
export function countSamples(script: string): { samples: number; by: Map<Category, number> } {
  const by = new Map<Category, number>();
  let samples = 0;
  let frames: Frame[] = [];
  const flush = () => {
    if (frames.length === 0) return;
    const category = categoryOf(frames);
    by.set(category, (by.get(category) ?? 0) + 1);
    samples += 1;
    frames = [];
  };
  for (const line of script.split("\n")) {
    if (line.trim() === "") {
      flush();
      continue;
    }
    const frame = /^\s+[0-9a-f]+ (.*) \((.*)\)$/.exec(line);
    if (frame?.[1] && frame[2] !== undefined)
      frames.push({ symbol: frame[1].replace(/\+0x[0-9a-f]+$/, ""), dso: frame[2] });
  }
  flush();
  return { samples, by };
}
