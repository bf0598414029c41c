/**
 * Closed deployment end to end: `wrangler dev` with AUTH_REQUIRED=true, a user made with the
 * users CLI against the same local D1, the official SDK client with and without the token, and a
 * revocation through the CLI taking effect within 10 seconds; the banner's `try` line works as
 * printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnCli } from "./cli-run.ts";
import { asTask, bearerClients, stateOf, textRequest } from "./client.ts";
import type { DevServer } from "./dev-server.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";
import { tokenIn, usersCommand } from "./users.ts";

let harness: SharedHarness;
let server: DevServer;

const users = (...args: string[]) => usersCommand(server, args);

beforeAll(async () => {
  harness = await sharedScriptedHarness({ AUTH_REQUIRED: "true" });
  ({ server } = harness);
});

afterAll(async () => {
  await harness?.release();
});

describe("a closed deployment", () => {
  it("refuses callers without a token and serves a user made with the CLI until revoked", async () => {
    const output = await users("add", "e2e-user", "--name", "E2E user");
    const token = tokenIn(output) as string;
    expect(token).toBeDefined();
    expect(await users("list")).toContain("e2e-user");

    const card = (await (
      await fetch(`${server.url}/.well-known/agent-card.json`, {
        headers: { "A2A-Version": "1.0" },
      })
    ).json()) as Record<string, unknown>;
    expect(card.securitySchemes).toBeDefined();

    const anonymous = await bearerClients(null).createFromUrl(server.url);
    await expect(anonymous.sendMessage(textRequest("[[reply:no]]"))).rejects.toThrow();

    const client = await bearerClients(token).createFromUrl(server.url);
    const task = asTask(await client.sendMessage(textRequest("[[reply:hello e2e-user]]")));
    expect(stateOf(task)).toBe("TASK_STATE_COMPLETED");

    await users("revoke", "e2e-user");
    // Credentials are cached for 5 s per isolate (that bound is tested with a held clock in
    // test/integration/auth.test.ts): here the revoked token is refused, however long it takes.
    await expect
      .poll(() =>
        client.getTask({ tenant: "", id: task.id }).then(
          () => "accepted",
          () => "refused",
        ),
      )
      .toBe("refused");
    // Each `npm run users` call spawns wrangler (seconds apiece on a busy machine).
  }, 180_000);

  it("the banner's try line works as printed: it carries the session's token", async () => {
    const line = /^ {2}try +npm run a2a -- (.+)$/m.exec(server.output())?.[1] ?? "";
    expect(line).toMatch(/^chat \S+ --url http:\/\/127\.0\.0\.1:\d+ --token dev-admin-\S+$/);
    const run = await spawnCli(line.split(" "), { input: "Say hi [[reply:hi from closed]]\n" });
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain("hi from closed");
  });
});
