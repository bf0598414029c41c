/**
 * What the CPU bench (bench/cpu-profile.ts) reads from a running `wrangler dev`: a Chrome DevTools
 * Protocol client for its inspectors (wrangler's proxy on `--inspector-port`, one target: the
 * Worker's isolate; and workerd's own, listing every isolate), the scripts that isolate loaded with their source maps (read while the
 * server runs: wrangler deletes its bundle directory on exit), and the CPU time of the workerd
 * process behind it (all its threads, from /proc: Linux only, null elsewhere). Node only.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A connected DevTools session. */
export interface Inspector {
  /** Sends a command and resolves with its result (rejects with its error). */
  call<T = unknown>(method: string, params?: object): Promise<T>;
  /** Calls `listener` with the params of every event named `method`. */
  on(method: string, listener: (params: unknown) => void): void;
  close(): void;
}

interface Message {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { message?: string };
}

/** An inspector target: an isolate (workerd names it by service, e.g. `d1:db`). */
export interface InspectorTarget {
  id: string;
  webSocketDebuggerUrl: string;
}

/** The targets listed at `http://127.0.0.1:<port>/json/list` (empty when it lists none). */
export async function inspectorTargets(port: number): Promise<InspectorTarget[]> {
  const response = await fetch(`http://127.0.0.1:${port}/json/list`);
  const list = response.ok ? ((await response.json()) as unknown) : [];
  return Array.isArray(list)
    ? (list as InspectorTarget[]).filter((t) => typeof t.webSocketDebuggerUrl === "string")
    : [];
}

/** Connects to a target's `webSocketDebuggerUrl`. */
export async function connectInspector(url: string): Promise<Inspector> {
  // wrangler's proxy admits a WebSocket from a local Origin (or from a client without a
  // User-Agent; Node's sends one). Node's WebSocket (undici) takes headers, the DOM type does not.
  const NodeWebSocket = WebSocket as unknown as new (
    url: string,
    init: { headers: Record<string, string> },
  ) => WebSocket;
  const socket = new NodeWebSocket(url, { headers: { Origin: "http://127.0.0.1" } });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`cannot connect to ${url}`)), {
      once: true,
    });
  });
  let next = 0;
  const pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  const listeners = new Map<string, Array<(params: unknown) => void>>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as Message;
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (waiting && message.id !== undefined) {
      pending.delete(message.id);
      // workerd answers its own Profiler commands by echoing them, with `result` only for stop.
      if (message.error) waiting.reject(new Error(message.error.message ?? "inspector error"));
      else waiting.resolve(message.result ?? {});
    } else if (message.method)
      for (const listener of listeners.get(message.method) ?? []) listener(message.params);
  });
  socket.addEventListener("close", () => {
    for (const { reject } of pending.values()) reject(new Error("the inspector closed"));
    pending.clear();
  });
  return {
    call<T>(method: string, params: object = {}) {
      // Far below the ids wrangler's proxy gives what it sends itself (from 100000001).
      const id = 1 + next++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: (r) => resolve(r as T), reject });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    on(method, listener) {
      listeners.set(method, [...(listeners.get(method) ?? []), listener]);
    },
    close: () => socket.close(),
  };
}

/** A script the isolate loaded: its URL and, when it has one on disk, its source map. */
export interface LoadedScript {
  url: string;
  map: SourceMap | null;
  /** The directory the map's `sources` are relative to. */
  mapDir: string;
}

/**
 * The isolate's scripts by `scriptId`, from the `Debugger.scriptParsed` events that
 * `Debugger.enable` sends for every loaded script (the debugger is disabled again at once).
 */
export async function loadedScripts(inspector: Inspector): Promise<Map<string, LoadedScript>> {
  const scripts = new Map<string, LoadedScript>();
  inspector.on("Debugger.scriptParsed", (params) => {
    const { scriptId, url, sourceMapURL } = params as {
      scriptId: string;
      url: string;
      sourceMapURL?: string;
    };
    let map: SourceMap | null = null;
    let mapDir = "";
    if (url.startsWith("file:") && sourceMapURL) {
      const mapUrl = new URL(sourceMapURL, url);
      if (mapUrl.protocol === "file:") {
        try {
          const path = fileURLToPath(mapUrl);
          const payload = JSON.parse(readFileSync(path, "utf8")) as SourceMapPayload;
          map = new SourceMap(payload);
          mapDir = resolve(dirname(path), payload.sourceRoot ?? "");
        } catch {
          // no readable map: the script is reported by its bundled URL
        }
      }
    }
    scripts.set(scriptId, { url, map, mapDir });
  });
  await inspector.call("Debugger.enable");
  await inspector.call("Debugger.disable");
  return scripts;
}

/** A process: its parent and its arguments. */
interface Proc {
  pid: number;
  ppid: number;
  argv: string[];
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      out.push({ pid: Number(name), ppid, argv });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * The pid of the workerd that runs the Worker of the `wrangler dev` started with
 * `--inspector-port <port>` (wrangler runs two: this one, with its own `--inspector-addr`, and
 * the proxy that serves the public port), or null when /proc does not tell.
 */
export function workerdPid(inspectorPort: number): number | null {
  let all: Proc[];
  try {
    all = processes();
  } catch {
    return null;
  }
  const port = String(inspectorPort);
  const wrangler = new Set(
    all
      .filter((p) =>
        p.argv.some(
          (a, i) =>
            a === `--inspector-port=${port}` ||
            (a === "--inspector-port" && p.argv[i + 1] === port),
        ),
      )
      .map((p) => p.pid),
  );
  const runtime = all.find(
    (p) =>
      wrangler.has(p.ppid) &&
      /workerd$/.test(p.argv[0] ?? "") &&
      p.argv.some((a) => a.startsWith("--inspector-addr")),
  );
  return runtime?.pid ?? null;
}

/**
 * The port of the workerd process `pid`'s own inspector (`--inspector-addr=127.0.0.1:0`: found
 * among its listening sockets as the one that lists targets), or null. It lists every isolate
 * of the process: the Worker's (which wrangler's proxy holds: workerd takes one session per
 * isolate), miniflare's entry, and the D1, R2 and cache simulators.
 */
export async function workerdInspectorPort(pid: number): Promise<number | null> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (link.startsWith("socket:[")) inodes.add(link.slice(8, -1));
    } catch {
      // closed meanwhile
    }
  }
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local address, state 0A = LISTEN, inode
    if (fields[3] !== "0A" || !inodes.has(fields[9] ?? "")) continue;
    const port = Number.parseInt(fields[1]?.split(":")[1] ?? "", 16);
    if ((await inspectorTargets(port).catch(() => [])).length > 0) return port;
  }
  return null;
}

/**
 * CPU time (ms) the threads of `pid` have used so far (/proc/<pid>/task/<tid>/schedstat, ns), but
 * V8's profiler thread (`v8:ProfEvntProc`), which runs for as long as a profile does.
 */
export function processCpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const task = `/proc/${pid}/task/${tid}`;
      if (readFileSync(`${task}/comm`, "utf8").startsWith("v8:Prof")) continue;
      ns += Number(readFileSync(`${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // thread ended meanwhile
    }
  }
  return ns / 1e6;
}
