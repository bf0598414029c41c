import { env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerEntries, ledgerMark, meterObjectSql } from "../../src/platform/ledger.ts";
import { stubByName } from "../../src/platform/object-stub.ts";
import { meteredEnv, resetStorageCounts, storageCounts } from "../../src/platform/storage-meter.ts";

describe("storage meter", () => {
  beforeEach(() => resetStorageCounts());

  it("leaves the bindings alone unless STORAGE_METER is true", () => {
    expect(meteredEnv(env)).toBe(env);
    expect(meteredEnv({ ...env, STORAGE_METER: "false" }).DB).toBe(env.DB);
  });

  it("counts D1 statements (reads and writes, batches, exec) and R2 operations by class", async () => {
    const m = meteredEnv({ ...env, STORAGE_METER: "true" });
    await m.DB.exec("CREATE TABLE IF NOT EXISTS meter_probe (k TEXT PRIMARY KEY, v TEXT)");
    await m.DB.prepare("INSERT OR REPLACE INTO meter_probe (k, v) VALUES (?, ?)")
      .bind("a", "1")
      .run();
    expect(await m.DB.prepare("SELECT v FROM meter_probe WHERE k = ?").bind("a").first("v")).toBe(
      "1",
    );
    await m.DB.prepare("SELECT * FROM meter_probe").all();
    await m.DB.batch([
      m.DB.prepare("INSERT OR REPLACE INTO meter_probe (k, v) VALUES ('b', '2')"),
      m.DB.prepare("SELECT COUNT(*) AS n FROM meter_probe"),
    ]);
    await m.FILES.put("meter/probe.txt", "x");
    await m.FILES.get("meter/probe.txt");
    await m.FILES.head("meter/probe.txt");
    await m.FILES.list({ prefix: "meter/" });
    await m.FILES.delete("meter/probe.txt");
    const counts = storageCounts();
    expect(counts.d1).toMatchObject({ statements: 6, reads: 3, writes: 3, batches: 1 });
    // Rows as D1 bills them, from the results that carry them (not `first()`'s).
    expect(counts.d1.rowsWritten).toBeGreaterThanOrEqual(2);
    expect(counts.d1.rowsRead).toBeGreaterThanOrEqual(2);
    expect(counts.r2).toEqual({ get: 1, head: 1, put: 1, list: 1, delete: 1, other: 0 });
    expect(counts.r2ClassA).toBe(2);
    expect(counts.r2ClassB).toBe(2);
    resetStorageCounts();
    expect(storageCounts().d1.statements).toBe(0);
    expect(Date.parse(storageCounts().since)).toBeGreaterThan(Date.parse("2020-01-01"));
  });

  it("keeps a ledger of timed round trips, SQL statements and marks", async () => {
    const m = meteredEnv({ ...env, STORAGE_METER: "true" });
    resetStorageCounts();
    ledgerMark("start");
    expect((await stubByName(m.USERS, "ledger-probe").usage()).dayTokens).toBe(0);
    await m.DB.prepare("SELECT 1 AS one").first();
    await m.DB.batch([m.DB.prepare("SELECT 1"), m.DB.prepare("SELECT 2")]);
    await m.FILES.head("ledger/probe.txt");
    // The task object counts its SQL from its constructor on (the ledger is on in this isolate).
    const inObject = await runInDurableObject(
      stubByName(env.TASKS, "ledger-probe"),
      (_o, state) => {
        const before = ledgerEntries().entries.length;
        meterObjectSql(state, "again"); // once per object: no second count, no second name
        state.storage.sql.exec("SELECT 1");
        state.storage.sql.exec("CREATE TABLE IF NOT EXISTS ledger_probe (v INTEGER)");
        state.storage.sql.exec("INSERT INTO ledger_probe (v) VALUES (1), (2)");
        return ledgerEntries().entries.slice(before);
      },
    );
    // Each statement with the rows it wrote, as Durable Objects bill them.
    expect(inObject.map((e) => [e.kind, e.name, e.rows])).toEqual([
      ["sql", "task", 0],
      ["sql", "task", expect.any(Number)],
      ["sql", "task", 2],
    ]);
    ledgerMark("end");
    const { entries, dropped } = ledgerEntries();
    // An alarm another test's object set may ring in this isolate meanwhile: not this test's.
    const alarm = (e: { kind: string; name: string }) =>
      e.kind === "mark" && /^invocation \w+\.alarm$/.test(e.name);
    const seen = entries
      .filter((e) => e.kind !== "sql" && !alarm(e))
      .map((e) => [e.kind, e.name.startsWith("head ") ? "head" : e.name]);
    expect(seen).toEqual([
      ["mark", "start"],
      ["do", "USERS.usage"],
      // The user object's call is an invocation of its own (the local limit guard marks it).
      ["mark", "invocation user.usage"],
      ["d1", "SELECT 1 AS one"],
      ["d1", "batch of 2"],
      ["r2", "head"],
      ["mark", "end"],
    ]);
    expect(dropped).toBe(0);
    for (const e of entries) {
      expect(e.at).toBeGreaterThanOrEqual(0);
      expect(e.ms).toBeGreaterThanOrEqual(0);
    }
    resetStorageCounts();
    expect(ledgerEntries().entries).toEqual([]);
  });

  it("counts a round trip as in flight until it settles, a failed one too", async () => {
    const m = meteredEnv({ ...env, STORAGE_METER: "true" });
    const before = ledgerEntries().inFlight;
    const read = m.DB.prepare("SELECT 1 AS one").first();
    const failed = m.DB.prepare("SELECT * FROM no_such_table").first();
    expect(ledgerEntries().inFlight).toBe(before + 2);
    await read;
    await failed.catch(() => {});
    expect(ledgerEntries().inFlight).toBe(before);
  });
});
