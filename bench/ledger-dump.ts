/**
 * `npm run bench:ledger`: one blocking one-turn task's whole ledger, entry by entry (SQL statements
 * with their text), on a metered harness; for finding where a task's round trips and statements come from.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { freePort, startDevServer } from "../test/e2e/dev-server.ts";
import { startFakeModel } from "../test/fake-model/server.ts";

const ADMIN = "ledger-admin";
const model = await startFakeModel({ port: 0 });
const server = await startDevServer({
  port: await freePort(),
  persistDir: mkdtempSync(join("/dev/shm", "a2a-ledger-")),
  vars: {
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "ledger-key",
    STORAGE_METER: "true",
    ADMIN_API_KEY: ADMIN,
  },
});
const meter = (method: string) =>
  fetch(`${server.url}/api/admin/storage-meter`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN}` },
  }).then((r) => r.json() as Promise<{ ledger: { entries: Array<Record<string, unknown>> } }>);
const send = () =>
  fetch(`${server.url}/`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          parts: [{ text: "[[reply:ok]]" }],
        },
      },
    }),
  }).then((r) => r.json());
try {
  for (let i = 0; i < 3; i++) await send();
  await new Promise((r) => setTimeout(r, 2_000));
  await meter("DELETE");
  const answer = await send();
  await new Promise((r) => setTimeout(r, 2_000));
  const { ledger } = await meter("GET");
  console.log(JSON.stringify(answer).slice(0, 200));
  for (const e of ledger.entries)
    console.log(
      `${String(e.at).padStart(5)} +${String(e.ms).padStart(3)} ${e.kind.toString().padEnd(4)} ${e.name}${e.sql ? `  ${e.sql}` : ""}`,
    );
} finally {
  await server.stop();
  await model.close();
}
