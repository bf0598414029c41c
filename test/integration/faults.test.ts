/**
 * Faults between the harness's parts (src/platform/retry.ts, recent-calls.ts, faults/): with the
 * fault injector, a transient failure of a call to the user object (lease, reserve, settle), a
 * task object (create) or the workspace (a write) — refused before it ran, or its answer lost
 * after — neither fails the task nor counts or writes twice; a persistent one fails the task with
 * a message that names the call. The injector hits calls by name and rate, and its rules are
 * checked (zod).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { setBudget } from "../../src/auth/users-store.ts";
import { aroundBindings } from "../../src/platform/binding-calls.ts";
import { platformEnv } from "../../src/platform/bindings.ts";
import {
  faultCounts,
  faultFor,
  injectFaults,
  setFaults,
} from "../../src/platform/faults/fault-injector.ts";
import { parseFaults } from "../../src/platform/faults/fault-spec.ts";
import { userCounters } from "../../src/platform/object-names.ts";
import { stubByName } from "../../src/platform/object-stub.ts";
import {
  DependencyFailure,
  failedDependency,
  RETRY_ATTEMPTS,
  retryTransient,
  transientKind,
} from "../../src/platform/retry.ts";
import { userObject } from "../../src/users/limits.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import { workspaceKey } from "../../src/workspace/keys.ts";
import { type WireTask as Task, userMessage } from "../helpers/a2a.ts";
import { newUser, postAs } from "../helpers/as-user.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { toolTurn } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";

afterEach(() => setFaults(null));

/** Sends `text` as `token`'s user and waits for the task's end. */
async function run(token: string, text: string): Promise<Task> {
  const response = await postAs(token, "SendMessage", { message: userMessage(text) });
  return ((await response.json()) as { result: { task: Task } }).result.task;
}

/** A user with a day budget (so reservations are made) and the tokens a scripted task spends. */
async function budgetedUser() {
  const user = await newUser();
  await setBudget(env.DB, user.id, { dayTokens: 10_000_000 });
  return { ...user, usage: () => userObject(env, userCounters(user.id)).usage() };
}

/** The reservations user `id`'s counters hold unsettled (none once every model call is settled). */
function reserved(id: string): Promise<number> {
  return runInDurableObject(
    userObject(env, userCounters(id)),
    (_object, state) =>
      state.storage.sql
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM reservations WHERE settled = 0")
        .one().n,
  );
}

describe("the fault injector", () => {
  it("hits the calls a rule names, with its rate and at most its times", () => {
    setFaults("users.reserve:error:1:2,d1:lost:0");
    expect(faultFor("users.settle")).toBeNull();
    expect(faultFor("users.reserve")).toEqual({ type: "error" });
    expect(faultFor("users.reserve")).toEqual({ type: "error" });
    expect(faultFor("users.reserve")).toBeNull();
    expect(faultFor("d1")).toBeNull();
    expect(faultCounts()).toEqual({ "users.reserve:error": 2 });
    setFaults("workspace:lost:0.5");
    const hit = Array.from({ length: 2_000 }, () => faultFor("workspace.write")).filter(Boolean);
    // Binomial(2000, 0.5): outside 800..1200 once in about 10^18 runs.
    expect(hit.length).toBeGreaterThan(800);
    expect(hit.length).toBeLessThan(1_200);
  });

  it("makes a binding call fail before it ran, or after it ran with its answer lost", async () => {
    const faulty = aroundBindings(env, injectFaults);
    const key = `fault-probe-${crypto.randomUUID()}`;
    const one = { perMinute: 1, extra: 0, ttlMs: 20_000 };
    setFaults("users.lease:error:1:1");
    await expect(
      stubByName(faulty.USERS, key).lease(crypto.randomUUID(), one),
    ).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(/^Network connection lost/),
    });
    // Refused before it ran: the minute's one place is still free.
    expect(await stubByName(env.USERS, key).lease(crypto.randomUUID(), one)).toMatchObject({
      ok: true,
    });
    setFaults("users.lease:lost:1:1");
    const other = `fault-probe-${crypto.randomUUID()}`;
    await expect(
      stubByName(faulty.USERS, other).lease(crypto.randomUUID(), one),
    ).rejects.toMatchObject({
      retryable: true,
    });
    // Run, then its answer lost: the place is taken.
    expect(await stubByName(env.USERS, other).lease(crypto.randomUUID(), one)).toMatchObject({
      ok: false,
    });
  });

  it("refuses rules it does not know, naming what is wrong", () => {
    expect(parseFaults("users.reserve:error:0.3,model:529:0.2,task:reset:0.05")).toHaveLength(3);
    expect(() => parseFaults("d1:reset:1")).toThrow(/only an object can be reset/);
    expect(() => parseFaults("users:529:1")).toThrow(/an HTTP status is a model fault/);
    expect(() => parseFaults("users:boom:1")).toThrow(
      /FAULTS rule "users:boom:1": unknown fault "boom"/,
    );
    expect(() => parseFaults("users:error:2")).toThrow();
    expect(() => parseFaults("printer:error:1")).toThrow(/unknown fault target/);
  });
});

describe("the retries", () => {
  /** A namespace whose stubs fail with `failures`' errors in turn, counting calls and stubs. */
  function flaky(failures: Array<Record<string, unknown>>) {
    const seen = { calls: 0, stubs: 0 };
    const stub = {
      async usage() {
        seen.calls += 1;
        const failure = failures.shift();
        if (failure) throw Object.assign(new Error("broken"), failure);
        return "fine";
      },
    };
    const USERS = {
      idFromName: (name: string) => name,
      get: (_id: string) => {
        seen.stubs += 1;
        return stub;
      },
    };
    return { seen, users: aroundBindings({ USERS, DB: undefined }, retryTransient).USERS };
  }

  it("repeat a transient failure on a fresh stub, an overloaded one after a wait, no other", async () => {
    const once = flaky([{ retryable: true }, { overloaded: true }]);
    expect(await once.users.get("u").usage()).toBe("fine");
    expect(once.seen).toEqual({ calls: 3, stubs: 3 });
    const lost = flaky([{ message: "Network connection lost." }]);
    expect(await lost.users.get("u").usage()).toBe("fine");
    const other = flaky([{}]);
    await expect(other.users.get("u").usage()).rejects.toThrow(/^broken$/);
    expect(other.seen.calls).toBe(1);
  });

  it("name the call once its attempts run out, and are not repeated further up", async () => {
    const always = flaky(Array.from({ length: RETRY_ATTEMPTS + 1 }, () => ({ retryable: true })));
    const error = await always.users
      .get("u")
      .usage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyFailure);
    expect(String(error)).toMatch(/users\.usage failed after 5 attempts: broken/);
    expect(always.seen.calls).toBe(RETRY_ATTEMPTS);
    // Its message crossed an RPC boundary: still named, and not transient any more.
    const remote = new Error(`Error: ${(error as Error).message}`);
    expect(failedDependency(remote)).toBe("users.usage");
    expect(transientKind(remote)).toBeNull();
  });
});

describe("transient faults", () => {
  it("a retried lease counts its places once", async () => {
    const key = `fault-lease-${crypto.randomUUID()}`;
    setFaults("users.lease:lost:1:2");
    const users = platformEnv(env).USERS;
    const two = { perMinute: 2, extra: 0, ttlMs: 20_000 };
    const lease = () => stubByName(users, key).lease(crypto.randomUUID(), two);
    expect(await lease()).toMatchObject({ ok: true, places: 1 });
    expect(await lease()).toMatchObject({ ok: true, places: 1 });
    expect(await lease()).toMatchObject({ ok: false });
  });

  it("lost answers of reserve, settle and create fail no task and count its tokens once", async () => {
    // Two model calls: the first takes the task's budget grant, the second reserves.
    const s = await scenario([toolTurn("read_file", { path: "none.md" }), { text: "answer one" }]);
    const calm = await budgetedUser();
    expect((await run(calm.token, `go ${s.marker}`)).status.state).toBe("TASK_STATE_COMPLETED");
    const hit = await budgetedUser();
    setFaults("users.reserve:lost:1:2,users.settle:lost:1:2,task.create:lost:1:1");
    expect((await run(hit.token, `go ${s.marker}`)).status.state).toBe("TASK_STATE_COMPLETED");
    // Settled in the background: wait until both users' reservations are settled and the second
    // lost settlement has run (counted, if it were counted twice).
    await until(
      async () => [await reserved(calm.id), await reserved(hit.id), faultCounts()] as const,
      ([a, b, counts]) => a === 0 && b === 0 && counts["users.settle:lost"] === 2,
    );
    expect(faultCounts()).toEqual({
      "users.reserve:lost": 2,
      "users.settle:lost": 2,
      "task.create:lost": 1,
    });
    const spent = (await calm.usage()).dayTokens;
    expect(spent).toBeGreaterThan(0);
    expect((await hit.usage()).dayTokens).toBe(spent);
  });

  it("lost answers of workspace writes fail no task and change each file once", async () => {
    const user = await newUser();
    const s = await scenario([
      toolTurn("write_file", { path: "one.md", content: "first\n" }),
      toolTurn("edit_file", { path: "one.md", old_text: "first", new_text: "second" }),
      toolTurn("memory_write", { content: "a note kept once", mode: "append" }),
      { text: "written" },
    ]);
    setFaults(
      "workspace.write:lost:1:2,workspace.edit:lost:1:1,workspace.memoryWrite:lost:1:1,r2.put:error:1:1",
    );
    const task = await run(user.token, `write ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(faultCounts()).toMatchObject({
      "workspace.write:lost": 2,
      "workspace.edit:lost": 1,
      "workspace.memoryWrite:lost": 1,
      "r2.put:error": 1,
    });
    const stub = stubByName(env.WORKSPACES, workspaceKey(String(task.metadata?.agent), user.id));
    const changes = await runInDurableObject(stub, (_object, state) =>
      state.storage.sql
        .exec<{ op: string; path: string }>("SELECT op, path FROM changes ORDER BY n")
        .toArray(),
    );
    expect(changes).toEqual([
      { op: "create", path: "one.md" },
      { op: "edit", path: "one.md" },
    ]);
    const file = await workspaceFor(env.WORKSPACES, String(task.metadata?.agent), user.id).read(
      "one.md",
    );
    expect(file.ok && file.value.content).toContain("second");
    // The edit's retry answered as the edit did (not "old_text not found"); the note is there once.
    const results = JSON.stringify(await modelRequests(s.id));
    expect(results).not.toContain("not found");
    const memory = await workspaceFor(
      env.WORKSPACES,
      String(task.metadata?.agent),
      user.id,
    ).memory();
    expect(memory?.split("a note kept once")).toHaveLength(2);
  });
});

describe("persistent faults", () => {
  it("fail the task after bounded retries, naming the call that failed", async () => {
    const user = await budgetedUser();
    // The task's grant cannot be reserved (given up: the call reserves its estimate itself), and
    // neither can the first call's reservation.
    const s = await scenario([toolTurn("read_file", { path: "none.md" }), { text: "never said" }]);
    setFaults("users.reserve:error:1");
    const task = await run(user.token, `doomed ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    expect(task.status.message?.parts[0]?.text).toMatch(
      /^The task failed because a call to users\.reserve kept failing after its retries \(users\.reserve failed after 5 attempts: Network connection lost/,
    );
    expect(faultCounts()).toEqual({ "users.reserve:error": 10 });
  });
});
