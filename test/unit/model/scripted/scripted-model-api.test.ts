/**
 * The scripted Messages API inside workerd: request validation as the real API does it
 * (including orphaned tool calls and a prompt longer than the model's context window),
 * authentication, inline directives without a scenario,
 * and the `/_scripted/` control API (zod-validated scenarios, request log, reset, health).
 */
import { describe, expect, it } from "vitest";
import {
  type LoggedRequest,
  type Scenario,
  ScenarioStore,
} from "../../../../src/model/scripted/messages-api.ts";
import { SCRIPTED_MODEL, scriptedClient, userMessage } from "../../../helpers/scripted-client.ts";
import { apiErrorOf, streamOnce } from "../../../helpers/sdk-calls.ts";

describe("scripted Messages API in-process: validation, directives, control", () => {
  it("rejects orphaned tool_use and unexpected tool_result with the real API's 400", async () => {
    const { store, client } = scriptedClient();
    const toolUse = { type: "tool_use" as const, id: "toolu_orphan", name: "t", input: {} };
    const orphan = await apiErrorOf(
      client.messages.create({
        model: SCRIPTED_MODEL,
        max_tokens: 64,
        messages: [
          userMessage("hi"),
          { role: "assistant", content: [toolUse] },
          userMessage("and then?"),
        ],
      }),
    );
    expect(orphan.status).toBe(400);
    expect(orphan.type).toBe("invalid_request_error");
    expect(orphan.message).toContain(
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_orphan.",
    );
    const stray = await apiErrorOf(
      client.messages.create({
        model: SCRIPTED_MODEL,
        max_tokens: 64,
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x" }] }],
      }),
    );
    expect(stray.status).toBe(400);
    expect(stray.message).toContain(
      "unexpected `tool_use_id` found in `tool_result` blocks: toolu_x",
    );
    expect(store.requests().map((r) => [r.status, r.attempt])).toEqual([
      [400, 0],
      [400, 0],
    ]);
  });

  it("refuses a prompt its model's context window cannot hold, as the API does (400, once)", async () => {
    const { store, client } = scriptedClient();
    // About 250,000 tokens at four characters each: over Haiku 4.5's 200K, under Sonnet 4.6's 1M.
    const long = userMessage("word ".repeat(200_000));
    const refused = await apiErrorOf(
      client.messages.create({ model: "claude-haiku-4-5", max_tokens: 64, messages: [long] }),
    );
    expect(refused.status).toBe(400);
    expect(refused.type).toBe("invalid_request_error");
    expect(refused.message).toMatch(/prompt is too long: \d+ tokens > 200000 maximum/);
    const fits = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 64,
      messages: [long],
    });
    expect(fits.stop_reason).toBe("end_turn");
    expect(store.requests().map((r) => r.status)).toEqual([400, 200]);
  });

  it("validates the body like the real API", async () => {
    const { request } = scriptedClient();
    const post = async (body: string) => {
      const res = await request("/v1/messages", {
        method: "POST",
        headers: { "x-api-key": "k" },
        body,
      });
      const json = (await res.json()) as { error: { type: string; message: string } };
      return [res.status, json.error.message];
    };
    const ok = { model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] };
    expect(await post("not json")).toEqual([400, "request body is not valid JSON"]);
    expect(await post(JSON.stringify({ ...ok, model: undefined }))).toEqual([
      400,
      "model: Field required",
    ]);
    expect((await post(JSON.stringify({ ...ok, max_tokens: 0 })))[1]).toMatch(/^max_tokens/);
    expect((await post(JSON.stringify({ ...ok, messages: [] })))[1]).toMatch(/^messages/);
    const assistantFirst = { ...ok, messages: [{ role: "assistant", content: "x" }] };
    expect((await post(JSON.stringify(assistantFirst)))[1]).toContain('"user" role');
    const notFound = await request("/v1/complete");
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({
      type: "error",
      error: { type: "not_found_error" },
    });
  });

  it("answers 401 authentication_error without a key and accepts x-api-key or Bearer", async () => {
    const { request } = scriptedClient();
    const body = JSON.stringify({ model: "m", max_tokens: 5, messages: [userMessage("x")] });
    const send = (headers: Record<string, string>) =>
      request("/v1/messages/", { method: "POST", headers, body });
    const denied = await send({ authorization: "Bearer " });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({
      type: "error",
      error: { type: "authentication_error" },
    });
    expect((await send({ "x-api-key": "k" })).status).toBe(200);
    expect((await send({ authorization: "Bearer k" })).status).toBe(200);
  });

  it("follows inline directives without a scenario", async () => {
    const { client } = scriptedClient();
    const reply = await streamOnce(client, [userMessage("[[chunk:3]] [[reply:abcdefghij]]")]);
    expect(reply.texts).toEqual(["abc", "def", "ghi", "j"]);

    const tool = await streamOnce(client, [userMessage('look [[tool:lookup {"q":{"term":"x"}}]]')]);
    const use = tool.message.content[0];
    if (use?.type !== "tool_use") throw new Error("expected a tool_use block");
    expect([use.name, use.input, tool.message.stop_reason]).toEqual([
      "lookup",
      { q: { term: "x" } },
      "tool_use",
    ]);
    const after = await streamOnce(client, [
      userMessage('look [[tool:lookup {"q":{"term":"x"}}]]'),
      { role: "assistant", content: tool.message.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "found 3" }] },
    ]);
    expect(after.texts.join("")).toBe("Tool lookup returned: found 3");

    const honest = await streamOnce(client, [userMessage("  What is 2+2? [[delay:1]] ")]);
    const said = honest.texts.join("");
    expect(said).toContain("not Claude");
    expect(said).toContain("“What is 2+2?”");
    expect(said).toContain("ANTHROPIC_API_KEY");

    const failed = await apiErrorOf(streamOnce(client, [userMessage("[[error:429]]")]));
    expect([failed.status, failed.type]).toEqual([429, "rate_limit_error"]);
  });

  it("serves the control API: scenarios (zod-validated), request log, reset, health", async () => {
    const { request: control, client } = scriptedClient();
    const bad = await control("/_scripted/scenarios", {
      method: "POST",
      body: JSON.stringify({ id: "bad id!", turns: [] }),
    });
    expect(bad.status).toBe(400);
    const issues = ((await bad.json()) as { issues: { path: string[] }[] }).issues;
    expect(issues.map((i) => i.path[0]).sort()).toEqual(["id", "turns"]);
    expect(() => new ScenarioStore().addScenario({ id: "x", turns: [] } as Scenario)).toThrow();

    const scenario: Scenario = { id: "ctl.1", turns: [{ text: "logged" }] };
    const created = await control("/_scripted/scenarios", {
      method: "POST",
      body: JSON.stringify(scenario),
    });
    expect([created.status, await created.json()]).toEqual([201, { id: "ctl.1" }]);
    await client.messages.create({
      model: SCRIPTED_MODEL,
      max_tokens: 9,
      messages: [userMessage("[[scenario:ctl.1]]")],
    });
    const log = (await (await control("/_scripted/requests?scenario=ctl.1")).json()) as {
      requests: LoggedRequest[];
    };
    expect(log.requests).toHaveLength(1);
    expect(log.requests[0]).toMatchObject({
      scenario: "ctl.1",
      turnIndex: 0,
      attempt: 1,
      headers: { authorization: "<set>", "anthropic-version": expect.any(String) },
      body: { model: SCRIPTED_MODEL, max_tokens: 9 },
    });
    expect(await (await control("/_scripted/health")).json()).toMatchObject({ ok: true });

    expect((await control("/_scripted/reset", { method: "POST" })).status).toBe(200);
    const empty = (await (await control("/_scripted/requests")).json()) as { requests: unknown[] };
    expect(empty.requests).toEqual([]);
    const gone = await apiErrorOf(
      client.messages.create({
        model: SCRIPTED_MODEL,
        max_tokens: 9,
        messages: [userMessage("[[scenario:ctl.1]]")],
      }),
    );
    expect([gone.status, gone.message]).toEqual([
      400,
      expect.stringContaining("unknown scripted scenario 'ctl.1'"),
    ]);
  });

  it("plays an in-order scenario's turns by request, a compacted conversation included", async () => {
    const { client } = scriptedClient({
      id: "seq.1",
      inOrder: true,
      turns: [{ text: "one" }, { text: "two" }, { text: "three" }],
    });
    const ask = [userMessage("[[scenario:seq.1]]")];
    // The same single-message request each time: by assistant messages it would be turn 0.
    expect((await streamOnce(client, ask)).texts.join("")).toBe("one");
    // A request that does not stream (a compaction's summary) sees the next turn, keeps it.
    const summary = await client.messages.create({
      model: SCRIPTED_MODEL,
      max_tokens: 9,
      messages: ask,
    });
    expect(summary.content).toEqual([expect.objectContaining({ type: "text", text: "two" })]);
    expect((await streamOnce(client, ask)).texts.join("")).toBe("two");
    expect((await streamOnce(client, ask)).texts.join("")).toBe("three");
  });
});
