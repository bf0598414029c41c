/**
 * A push notification receiver on 127.0.0.1 for the tests. Each hook (`/hooks/<name>`) records
 * every POST it gets (time, headers, body) and can be told to fail its first N deliveries with
 * a status: `POST /control/<name>` with `{"fail": N, "status": 503}`. `GET /received/<name>`
 * returns what it got. Node only; the workerd tests reach it over 127.0.0.1.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST the receiver got. */
export interface Received {
  at: number;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A running receiver. */
export interface FakePushReceiver {
  url: string;
  received(name: string): Received[];
  close(): Promise<void>;
}

/** Starts the receiver on a free port. */
export async function startFakePush(): Promise<FakePushReceiver> {
  const hooks = new Map<string, { failLeft: number; status: number; got: Received[] }>();
  const hook = (name: string) => {
    let h = hooks.get(name);
    if (!h) {
      h = { failLeft: 0, status: 503, got: [] };
      hooks.set(name, h);
    }
    return h;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const [, kind, name = ""] = (req.url ?? "").split("?")[0]?.split("/") ?? [];
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (kind === "control" && req.method === "POST") {
        const { fail = 0, status = 503 } = JSON.parse(body || "{}") as {
          fail?: number;
          status?: number;
        };
        Object.assign(hook(name), { failLeft: fail, status });
        return json(200, { ok: true });
      }
      if (kind === "received" && req.method === "GET") return json(200, hook(name).got);
      if (kind === "hooks" && req.method === "POST") {
        const h = hook(name);
        const status = h.failLeft > 0 ? h.status : 200;
        if (h.failLeft > 0) h.failLeft--;
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
        h.got.push({ at: Date.now(), status, headers, body });
        return json(status, { ok: status === 200 });
      }
      json(404, { error: "not found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: (name) => hook(name).got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
