/**
 * Runs the scripted Messages API as a standalone server:
 * `node test/fake-model/cli.ts [--port N] [--host H]` (Node 22, via `npm run fake-model`).
 * Prints `scripted Messages API listening on <url>`; stops on SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { startFakeModel } from "./server.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`invalid --port ${values.port}`);
  process.exit(2);
}

const server = await startFakeModel({ port, host: values.host });
console.log(`scripted Messages API listening on ${server.url}`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`received ${signal}, stopping`);
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
