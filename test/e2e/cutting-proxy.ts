/**
 * A TCP proxy on 127.0.0.1 in front of a dev server that cuts the first SSE stream (a response
 * with `text/event-stream`) once `afterEvents` events with an id went through it: the client sees
 * its connection drop mid-stream while the task goes on (`afterEvents` 0: before its headers reach
 * the client, so it never learns the task's id). Later streams pass untouched. Node only.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

/** A running proxy. */
export interface CuttingProxy {
  url: string;
  /** How many streams it cut. */
  cuts(): number;
  close(): Promise<void>;
}

/** Starts the proxy in front of `upstreamPort`. */
export async function startCuttingProxy(
  upstreamPort: number,
  afterEvents: number,
): Promise<CuttingProxy> {
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: "127.0.0.1", port: upstreamPort });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    let seen = "";
    let stream = false;
    upstream.on("data", (chunk: Buffer) => {
      if (cuts === 0) {
        seen += chunk.toString("latin1");
        stream ||= /content-type: text\/event-stream/i.test(seen);
        if (stream && afterEvents === 0) {
          // Before anything of the stream reaches the client: not even the task's id.
          cuts++;
          client.destroy();
          upstream.destroy();
          return;
        }
        if (stream && (seen.match(/\nid: /g) ?? []).length >= afterEvents) {
          cuts++;
          client.write(chunk);
          client.destroy();
          upstream.destroy();
          return;
        }
      }
      client.write(chunk);
    });
    client.on("data", (chunk: Buffer) => upstream.write(chunk));
    client.on("end", () => upstream.end());
    upstream.on("end", () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    cuts: () => cuts,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
