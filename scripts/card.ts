/**
 * `npm run card -- <agent> [--url <public base URL>]`: prints the agent's v1.0 Agent Card as the
 * Worker would serve it at /agents/<agent>/.well-known/agent-card.json. The base URL defaults to
 * PUBLIC_URL, else http://127.0.0.1:8787; A2A_API_KEY and ANTHROPIC_API_KEY in the environment
 * change the card the same way they do in the Worker.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildAgentCard } from "../src/a2a/cards/card.ts";
import { IdentityError, parseIdentity } from "../src/agents/identity.ts";
import { loadConfig } from "../src/config/config.ts";
import { agentUrl, publicBaseUrl } from "../src/config/public-url.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { url: { type: "string" } },
});
const name = positionals[0];
if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error("usage: npm run card -- <agent> [--url https://your-host]");
  process.exit(2);
}
const file = `agents/${name}/IDENTITY.md`;
let text: string;
try {
  text = readFileSync(join(root, file), "utf8");
} catch {
  console.error(`${file}: not found`);
  process.exit(1);
}
try {
  const agent = parseIdentity(file, text);
  const config = loadConfig({
    PUBLIC_URL: values.url ?? process.env.PUBLIC_URL ?? "http://127.0.0.1:8787",
    A2A_API_KEY: process.env.A2A_API_KEY,
    ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY,
    SCRIPTED_MODEL: process.env.SCRIPTED_MODEL ?? "off",
  });
  const card = buildAgentCard(
    agent,
    { endpoint: agentUrl(publicBaseUrl(config, "http://127.0.0.1:8787"), agent.name) },
    config,
  );
  console.log(JSON.stringify(card, null, 2));
} catch (error) {
  console.error(error instanceof IdentityError ? error.message : String(error));
  process.exit(1);
}
