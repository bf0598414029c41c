/**
 * A fake of the parts of the Cloudflare API that `npm run deploy` makes wrangler call, on
 * 127.0.0.1 (wrangler reads CLOUDFLARE_API_BASE_URL): Workers (services, scripts, settings,
 * secrets, schedules, the workers.dev subdomain), D1 (list, create, lookup by name, SQL on a real
 * SQLite database) and R2 buckets. Stateful, so a second deploy meets what the first created.
 * Every request is recorded; an unknown one is answered 404 and recorded as such. A test can
 * hold a request (`hold`): it is answered only when released, with what the fake would have
 * said or with another answer. Node only.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DatabaseSync } from "node:sqlite";

/** One request the fake got. */
export interface ApiCall {
  method: string;
  path: string;
  known: boolean;
  body: string;
}

/** What the account holds. */
export interface FakeAccount {
  scripts: Map<
    string,
    {
      uploads: number;
      secrets: Map<string, string>;
      crons: string[];
      metadata: Record<string, unknown>;
    }
  >;
  databases: Map<string, { uuid: string; name: string; db: DatabaseSync }>;
  buckets: Set<string>;
  /** The paths of the static assets each Worker's last upload session listed. */
  assets: Map<string, string[]>;
}

/** An answer of the API: an HTTP status and its JSON body. */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** A request held by the fake until the test releases it. */
export interface HeldRequest {
  /** Resolves when a matching request arrives (and is held). */
  reached: Promise<void>;
  /** Resolves when the held request's connection closes (its client gone) or it is answered. */
  closed: Promise<void>;
  /** Answers it: with `answer`, or with what the fake would have said. */
  release(answer?: ApiAnswer): void;
}

/** A running fake. */
export interface FakeCloudflare {
  /** The API base URL (CLOUDFLARE_API_BASE_URL). */
  url: string;
  accountId: string;
  account: FakeAccount;
  calls: ApiCall[];
  /** Holds the next request that `matches` (method, path with query) until released. */
  hold(matches: (method: string, path: string) => boolean): HeldRequest;
  close(): Promise<void>;
}

const ok = (result: unknown, extra: Record<string, unknown> = {}) => ({
  status: 200,
  body: { success: true, errors: [], messages: [], result, ...extra },
});
const fail = (status: number, code: number, message: string) => ({
  status,
  body: { success: false, errors: [{ code, message }], messages: [], result: null },
});

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The `metadata` part of a multipart script upload. */
function uploadMetadata(body: Buffer, contentType: string): Record<string, unknown> {
  const boundary = /boundary=(.+)$/.exec(contentType)?.[1];
  if (!boundary) return {};
  for (const part of body.toString("latin1").split(`--${boundary}`)) {
    if (!/name="metadata"/.test(part)) continue;
    const json = part.slice(part.indexOf("\r\n\r\n") + 4).replace(/\r\n$/, "");
    return JSON.parse(Buffer.from(json, "latin1").toString("utf8")) as Record<string, unknown>;
  }
  return {};
}

/** Runs D1 SQL (a query, or a script of statements) the way the D1 query API answers it. */
function query(db: DatabaseSync, sql: string, params: unknown[]): unknown[] {
  const meta = { changes: 0, duration: 0, rows_read: 0, rows_written: 0 };
  const reads = /^\s*(select|pragma|with)\b/i.test(sql);
  if (!/;\s*\S/.test(sql.trim()) && (params.length > 0 || reads)) {
    const statement = db.prepare(sql);
    if (reads) return [{ results: statement.all(...(params as [])), success: true, meta }];
    statement.run(...(params as []));
  } else db.exec(sql);
  return [{ results: [], success: true, meta }];
}

type Answer = ApiAnswer | null;
type Request = { method: string; rest: string; url: URL; body: Buffer; contentType: string };

/** /workers/...: services, scripts (upload, secrets, settings, schedules, subdomain). */
function workers(account: FakeAccount, { method, rest, body, contentType }: Request): Answer {
  if (rest === "/workers/subdomain" && method === "GET") return ok({ subdomain: "fake-sub" });
  const service = /^\/workers\/services\/([^/]+)$/.exec(rest);
  if (service && method === "GET")
    return account.scripts.has(service[1] as string)
      ? ok({
          id: service[1],
          default_environment: {
            environment: "production",
            script: { id: service[1], tag: "tag" },
          },
        })
      : fail(404, 10090, "This Worker does not exist on your account.");
  // The Worker with its workers.dev subdomain state (wrangler 4.15x reads it after an upload).
  const worker = /^\/workers\/workers\/([^/]+)$/.exec(rest);
  if (worker && method === "GET")
    return account.scripts.has(worker[1] as string)
      ? ok({
          id: worker[1],
          name: worker[1],
          subdomain: { enabled: true, previews_enabled: false },
        })
      : fail(404, 10007, "This Worker does not exist on your account.");
  const found = /^\/workers\/scripts\/([^/]+)(\/.*)?$/.exec(rest);
  if (!found) return null;
  const name = found[1] as string;
  const sub = found[2] ?? "";
  const script = account.scripts.get(name);
  // Static assets: the session lists the files; none needs uploading (the fake keeps no bytes),
  // so its token completes the upload, and the script's upload names it.
  if (sub === "/assets-upload-session" && method === "POST") {
    const { manifest } = JSON.parse(body.toString("utf8")) as { manifest: Record<string, unknown> };
    account.assets.set(name, Object.keys(manifest).sort());
    return ok({ jwt: "fake-assets-completion", buckets: [] });
  }
  if (sub === "" && method === "PUT") {
    const metadata = uploadMetadata(body, contentType);
    const entry = script ?? { uploads: 0, secrets: new Map(), crons: [], metadata };
    entry.uploads++;
    entry.metadata = metadata;
    for (const b of (metadata.bindings ?? []) as Array<{
      type: string;
      name: string;
      text?: string;
    }>)
      if (b.type === "secret_text") entry.secrets.set(b.name, b.text ?? "");
    account.scripts.set(name, entry);
    return ok({ id: name, etag: "etag", startup_time_ms: 10, has_modules: true });
  }
  if (!script) return fail(404, 10007, "This Worker does not exist on your account.");
  const schedules = () => ok({ schedules: script.crons.map((cron) => ({ cron })) });
  switch (`${method} ${sub}`) {
    case "GET /secrets":
      return ok([...script.secrets.keys()].map((n) => ({ name: n, type: "secret_text" })));
    case "GET /settings":
      return ok({ bindings: script.metadata.bindings ?? [] });
    case "PUT /schedules":
      script.crons = (JSON.parse(body.toString("utf8")) as Array<{ cron: string }>).map(
        (s) => s.cron,
      );
      return schedules();
    case "GET /schedules":
      return schedules();
    case "GET /subdomain":
    case "POST /subdomain":
      return ok({ enabled: true, previews_enabled: false });
    case "GET /deployments":
      return ok({ deployments: [] });
    default:
      return null;
  }
}

/** /d1/database...: list, create, look up (by id or name), query. */
function d1(account: FakeAccount, { method, rest, url, body }: Request): Answer {
  const all = [...account.databases.values()];
  if (rest === "/d1/database" && method === "GET") {
    const named = all.filter(
      (d) => !url.searchParams.get("name") || d.name === url.searchParams.get("name"),
    );
    return ok(
      named.map((d) => ({ uuid: d.uuid, name: d.name, version: "production" })),
      {
        result_info: { page: 1, per_page: 1000, count: named.length, total_count: named.length },
      },
    );
  }
  if (rest === "/d1/database" && method === "POST") {
    const { name } = JSON.parse(body.toString("utf8")) as { name: string };
    const uuid = crypto.randomUUID();
    account.databases.set(uuid, { uuid, name, db: new DatabaseSync(":memory:") });
    return ok({ uuid, name, version: "production" });
  }
  const found = /^\/d1\/database\/([^/]+)(\/query)?$/.exec(rest);
  if (!found) return null;
  const db = all.find((d) => d.uuid === found[1] || d.name === found[1]);
  if (!db) return fail(404, 7404, "The database could not be found");
  if (!found[2] && method === "GET")
    return ok({ uuid: db.uuid, name: db.name, version: "production", num_tables: 0, file_size: 0 });
  if (!found[2] || method !== "POST") return null;
  const { sql, params } = JSON.parse(body.toString("utf8")) as { sql: string; params?: unknown[] };
  try {
    return ok(query(db.db, sql, params ?? []));
  } catch (error) {
    return fail(400, 7500, `${(error as Error).message}: SQLITE_ERROR`);
  }
}

/** /r2/buckets...: look up, create, list. */
function r2(account: FakeAccount, { method, rest, body }: Request): Answer {
  const bucket = /^\/r2\/buckets\/([^/]+)$/.exec(rest);
  if (bucket && method === "GET")
    return account.buckets.has(bucket[1] as string)
      ? ok({ name: bucket[1], creation_date: new Date().toISOString(), location: "weur" })
      : fail(404, 10006, "The specified bucket does not exist.");
  if (rest === "/r2/buckets" && method === "POST") {
    account.buckets.add((JSON.parse(body.toString("utf8")) as { name: string }).name);
    return ok({});
  }
  if (rest === "/r2/buckets" && method === "GET")
    return ok({ buckets: [...account.buckets].map((name) => ({ name })) });
  return null;
}

/** Starts the fake on a free port. */
export async function startFakeCloudflare(
  accountId = "acc0000000000000000000000000fake",
): Promise<FakeCloudflare> {
  const account: FakeAccount = {
    scripts: new Map(),
    databases: new Map(),
    buckets: new Set(),
    assets: new Map(),
  };
  const calls: ApiCall[] = [];
  const base = `/client/v4/accounts/${accountId}`;
  const holds: Array<{
    matches: (method: string, path: string) => boolean;
    reach: () => void;
    close: () => void;
    answer: Promise<ApiAnswer | undefined>;
  }> = [];

  function route(request: Omit<Request, "rest">, path: string): Answer {
    // d1 info's usage figures: none.
    if (path === "/client/v4/graphql")
      return {
        status: 200,
        body: { data: { viewer: { accounts: [{ d1AnalyticsAdaptiveGroups: [] }] } }, errors: null },
      };
    // wrangler whoami (deploy's login check): the API token is valid, for this one account.
    if (path === "/client/v4/user/tokens/verify")
      return ok({ id: "fake-token-id", status: "active" });
    if (path === "/client/v4/user") return ok({ id: "fake-user", email: "dev@example.com" });
    if (path === "/client/v4/memberships" || path === "/client/v4/accounts")
      return ok(
        path.endsWith("accounts")
          ? [{ id: accountId, name: "Fake account" }]
          : [{ id: "m1", account: { id: accountId, name: "Fake account" }, status: "accepted" }],
      );
    if (!path.startsWith(base)) return null;
    const r = { ...request, rest: path.slice(base.length) };
    return workers(account, r) ?? d1(account, r) ?? r2(account, r);
  }

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const answer = route(
      { method: req.method ?? "GET", url, body, contentType: req.headers["content-type"] ?? "" },
      url.pathname,
    );
    calls.push({
      method: req.method ?? "GET",
      path: url.pathname + url.search,
      known: answer !== null,
      body: body.subarray(0, 2000).toString("utf8"),
    });
    const held = holds.findIndex((h) => h.matches(req.method ?? "GET", url.pathname + url.search));
    let override: ApiAnswer | undefined;
    if (held >= 0) {
      const [hold] = holds.splice(held, 1);
      if (hold) {
        res.once("close", hold.close);
        hold.reach();
        override = await hold.answer;
        if (res.destroyed) return;
      }
    }
    const { status, body: json } =
      override ?? answer ?? fail(404, 10000, `fake: no route for ${req.method} ${url.pathname}`);
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(json));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`,
    accountId,
    account,
    calls,
    hold(matches) {
      let reach = () => {};
      let close = () => {};
      let release: (value?: ApiAnswer) => void = () => {};
      const reached = new Promise<void>((resolve) => {
        reach = resolve;
      });
      const closed = new Promise<void>((resolve) => {
        close = resolve;
      });
      const answer = new Promise<ApiAnswer | undefined>((resolve) => {
        release = resolve;
      });
      holds.push({ matches, reach, close, answer });
      return { reached, closed, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
