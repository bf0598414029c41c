/// <reference types="vite/client" />
/**
 * docs/deploy.md has a teardown section that removes everything a deploy makes, by the names
 * wrangler.toml gives them: the Worker (with its Durable Objects), the R2 bucket (emptied first)
 * and the D1 database. The files come in through Vite at build time (workerd has no file system).
 */
import { describe, expect, it } from "vitest";

const files = import.meta.glob<string>(["/docs/deploy.md", "/wrangler.toml"], {
  query: "?raw",
  import: "default",
  eager: true,
});
const raw = (path: string) => files[path] ?? "";

describe("docs/deploy.md's teardown", () => {
  it("deletes the Worker, the bucket (emptied first) and the database, by wrangler.toml's names", () => {
    const toml = raw("/wrangler.toml");
    const worker = /^name = "([^"]+)"/m.exec(toml)?.[1];
    const bucket = /^bucket_name = "([^"]+)"/m.exec(toml)?.[1];
    const database = /^database_name = "([^"]+)"/m.exec(toml)?.[1];
    expect([worker, bucket, database].every(Boolean)).toBe(true);
    const section = /\n## Teardown\n([\s\S]*?)(\n## |$)/.exec(raw("/docs/deploy.md"))?.[1] ?? "";
    const commands = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    expect(commands).toContain(`npx wrangler delete ${worker}`);
    expect(commands).toMatch(
      new RegExp(`npx wrangler r2 bucket lifecycle add ${bucket} .*--expire-days`),
    );
    expect(commands).toContain(`npx wrangler r2 bucket delete ${bucket}`);
    expect(commands).toContain(`npx wrangler d1 delete ${database}`);
    expect(section).toContain("Durable Objects");
  });
});
