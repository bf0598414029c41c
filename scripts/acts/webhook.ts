/**
 * A webhook receiver of the runner's own on 127.0.0.1 (ACTS's `webhookUrl`, in place of the
 * corpus's example.com): push notification configs point at it, so deliveries stay on this
 * machine. It answers every POST 200 and keeps each one's path, headers and body. Node only.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One delivery. */
export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** The URL to register: `http://127.0.0.1:<port>/webhooks/a2a-tests`. */
  url: string;
  deliveries: Delivery[];
  close(): Promise<void>;
}

/** Starts a receiver on a free port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/a2a-tests`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
