/**
 * `npm run users -- <command>`: users and API tokens in D1, local by default (the database
 * `npm run dev` uses; `--persist-to DIR` for another state directory), `--remote` for the
 * deployed one. A new token is printed once and never stored: only its SHA-256 hash is.
 *
 *   add <id> [--name N] [--role user|admin] [--agents a,b] [--subject S]
 *                                                            a user and a first token; --subject
 *                                                            maps an OIDC/Access JWT subject to it
 *   token <id> [--label L]                                   another token for a user
 *   list                                                     users, roles, agents, active tokens
 *   revoke <id>                                              revokes every token of a user
 *   rotate <id>                                              revokes them and issues a new one
 *   disable <id> | enable <id>                               turns a user off or on
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { newToken, tokenHash, tokenPrefix } from "../src/auth/tokens.ts";
import { reservedUserId } from "../src/auth/user-ids.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const ID = /^[a-z0-9][a-z0-9._@-]{0,63}$/;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: "string" },
    role: { type: "string", default: "user" },
    agents: { type: "string" },
    label: { type: "string", default: "" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
    subject: { type: "string" },
  },
});
const [command, id] = positionals;

function fail(message: string): never {
  console.error(`users: ${message}`);
  process.exit(1);
}

const quote = (value: string | null) =>
  value === null ? "NULL" : `'${value.replaceAll("'", "''")}'`;

function target(): string[] {
  if (values.remote) return ["--remote"];
  const persist = values["persist-to"];
  return ["--local", ...(persist ? ["--persist-to", persist] : [])];
}

/** Runs SQL against D1; returns the rows of the last statement. */
function sql(statement: string): Array<Record<string, unknown>> {
  const result = spawnSync(
    wrangler,
    ["d1", "execute", "DB", ...target(), "--json", "--command", statement],
    { cwd: root, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  if (result.status !== 0) fail(`wrangler d1 execute failed:\n${result.stderr || result.stdout}`);
  const parsed = JSON.parse(result.stdout) as Array<{ results?: Array<Record<string, unknown>> }>;
  return parsed.at(-1)?.results ?? [];
}

function migrate(): void {
  const result = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", ...target()], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (result.status !== 0) fail(`could not apply migrations:\n${result.stderr || result.stdout}`);
}

function requireUser(userId: string | undefined): string {
  if (!userId) fail(`${command} needs a user id`);
  if (sql(`SELECT id FROM users WHERE id = ${quote(userId)}`).length === 0)
    fail(`no user ${userId}`);
  return userId;
}

async function issue(userId: string, label: string): Promise<string> {
  const token = newToken();
  sql(
    `INSERT INTO tokens (hash, user_id, label, prefix, created_at) VALUES (${quote(await tokenHash(token))}, ${quote(userId)}, ${quote(label)}, ${quote(tokenPrefix(token))}, ${quote(new Date().toISOString())})`,
  );
  return token;
}

function printToken(userId: string, token: string): void {
  console.log(`token for ${userId} (shown once, store it now):\n\n  ${token}\n`);
  console.log(`use it as: Authorization: Bearer ${token.slice(0, 10)}...`);
}

migrate();
switch (command) {
  case "add": {
    if (!id || !ID.test(id)) fail("add needs an id: lower case letters, digits, . _ @ -");
    const reserved = reservedUserId(id);
    if (reserved) fail(reserved);
    const role = values.role;
    if (role !== "user" && role !== "admin") fail("--role is user or admin");
    const agents = values.agents
      ? JSON.stringify(
          values.agents
            .split(",")
            .map((a) => a.trim())
            .filter(Boolean),
        )
      : null;
    if (sql(`SELECT id FROM users WHERE id = ${quote(id)}`).length > 0) fail(`user ${id} exists`);
    if (
      values.subject !== undefined &&
      sql(`SELECT id FROM users WHERE subject = ${quote(values.subject)}`).length > 0
    )
      fail(`subject ${values.subject} already belongs to a user`);
    sql(
      `INSERT INTO users (id, name, role, agents_json, subject, created_at) VALUES (${quote(id)}, ${quote(values.name ?? id)}, ${quote(role)}, ${quote(agents)}, ${quote(values.subject ?? null)}, ${quote(new Date().toISOString())})`,
    );
    printToken(id, await issue(id, "first token"));
    break;
  }
  case "token":
    printToken(requireUser(id), await issue(requireUser(id), values.label));
    break;
  case "list": {
    const rows = sql(
      `SELECT u.id, u.name, u.role, u.agents_json, u.disabled_at,
         (SELECT COUNT(*) FROM tokens t WHERE t.user_id = u.id AND t.revoked_at IS NULL) AS tokens
       FROM users u ORDER BY u.created_at, u.id`,
    );
    if (rows.length === 0) console.log("no users");
    for (const r of rows)
      console.log(
        `${String(r.id).padEnd(24)} ${String(r.role).padEnd(6)} tokens: ${r.tokens}  agents: ${r.agents_json ?? "all"}${r.disabled_at ? "  DISABLED" : ""}  (${r.name})`,
      );
    break;
  }
  case "revoke": {
    const userId = requireUser(id);
    sql(
      `UPDATE tokens SET revoked_at = ${quote(new Date().toISOString())} WHERE user_id = ${quote(userId)} AND revoked_at IS NULL`,
    );
    console.log(`revoked every token of ${userId} (in effect within 10 seconds)`);
    break;
  }
  case "rotate": {
    const userId = requireUser(id);
    sql(
      `UPDATE tokens SET revoked_at = ${quote(new Date().toISOString())} WHERE user_id = ${quote(userId)} AND revoked_at IS NULL`,
    );
    printToken(userId, await issue(userId, "rotated"));
    break;
  }
  case "disable":
  case "enable": {
    const userId = requireUser(id);
    sql(
      `UPDATE users SET disabled_at = ${command === "disable" ? quote(new Date().toISOString()) : "NULL"} WHERE id = ${quote(userId)}`,
    );
    console.log(`${userId} ${command}d`);
    break;
  }
  default:
    fail("commands: add, token, list, revoke, rotate, disable, enable (see scripts/users.ts)");
}
