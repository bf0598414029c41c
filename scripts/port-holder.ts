/**
 * Whether a TCP port is free to listen on, and which process holds it when it is not: the
 * listening socket's inode from /proc/net/tcp{,6}, the process whose fd points at it, its command
 * line from /proc/<pid>/cmdline (else `lsof`, on systems without /proc). A holder started by
 * `npm run dev` (scripts/dev.ts among its ancestors) is named as such, with that script's pid
 * and directory. Node only; reads only what the user may read.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";

/** A process holding a port. */
export interface PortHolder {
  pid: number;
  command: string;
  /** The `npm run dev` (scripts/dev.ts) it belongs to, if any. */
  dev?: { pid: number; cwd: string };
}

/** Whether `ip`:`port` can be listened on now (tried, then released at once). */
export function portFree(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ host: ip, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

/** A process's command line, arguments joined by spaces. */
const commandOf = (pid: number) =>
  (read(`/proc/${pid}/cmdline`) ?? "").split("\0").filter(Boolean).join(" ");

/** The inodes of sockets listening on `port` (any address). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of (read(table) ?? "").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1]?.split(":")[1];
      // st 0A is LISTEN.
      if (local && Number.parseInt(local, 16) === port && cols[3] === "0A" && cols[9])
        inodes.add(cols[9]);
    }
  }
  return inodes;
}

/** The pid holding one of `inodes`, from /proc/<pid>/fd. */
function pidOfInodes(inodes: Set<string>): number | null {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`))?.[1];
        if (inode && inodes.has(inode)) return Number(entry);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/** The pid listening on `port` by `lsof`, where there is no /proc. */
function pidByLsof(port: number): { pid: number; command: string } | null {
  const run = spawnSync("lsof", ["-nP", `-iTCP:${port}`, "-sTCP:LISTEN", "-Fpc"], {
    encoding: "utf8",
  });
  const pid = /^p(\d+)$/m.exec(run.stdout ?? "")?.[1];
  if (!pid) return null;
  const ps = spawnSync("ps", ["-o", "command=", "-p", pid], { encoding: "utf8" });
  return {
    pid: Number(pid),
    command: ps.stdout?.trim() || (/^c(.*)$/m.exec(run.stdout)?.[1] ?? ""),
  };
}

/** The `npm run dev` among `pid` and its ancestors, if one. */
function devAncestor(pid: number): PortHolder["dev"] {
  for (let current = pid, hops = 0; current > 1 && hops < 20; hops++) {
    if (/scripts\/dev\.ts(\s|$)/.test(commandOf(current))) {
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${current}/cwd`);
      } catch {
        // another user's
      }
      return { pid: current, cwd };
    }
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
    const stat = read(`/proc/${current}/stat`) ?? "";
    current = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  }
  return undefined;
}

/** Which process holds `port`, or null when it cannot be told. */
export function portHolder(port: number): PortHolder | null {
  if (read("/proc/net/tcp") === null) return pidByLsof(port);
  const pid = pidOfInodes(listeningInodes(port));
  if (pid === null) return pidByLsof(port);
  const dev = devAncestor(pid);
  return { pid, command: commandOf(pid), ...(dev ? { dev } : {}) };
}

/** The line `npm run dev` stops with when `ip`:`port` is taken. */
export function portTakenMessage(ip: string, port: number, holder: PortHolder | null): string {
  const by = holder?.dev
    ? `another npm run dev (pid ${holder.dev.pid}${holder.dev.cwd ? `, in ${holder.dev.cwd}` : ""})`
    : holder
      ? `pid ${holder.pid} (${holder.command.length > 200 ? `${holder.command.slice(0, 199)}…` : holder.command || "command unknown"})`
      : "a process this user cannot see";
  return `port ${port} on ${ip} is taken by ${by}: stop it, or use another port: npm run dev -- --port ${port + 1}`;
}
