/**
 * Both bindings' v0.3 output, held still: what the JSON-RPC dialect (protocol/v03/json-rpc.ts:
 * the spec's JSON data objects, `kind` discriminators and state words) and the HTTP+JSON dialect
 * (protocol/v03/http-json.ts: ProtoJSON of the v0.3 proto, `content`, proto field names,
 * `TASK_STATE_CANCELLED`) make of every shape in v03-fixtures.ts equals v03-golden.json, recorded
 * from the two translations before they moved into one place (a2a/rest/rest-codec-v03.ts and
 * rest-push.ts, protocol/wire-v03.ts). A change to either dialect shows here as a diff of the wire.
 */
import { describe, expect, it } from "vitest";
import * as rest from "../../../src/protocol/v03/http-json.ts";
import * as rpc from "../../../src/protocol/v03/json-rpc.ts";
import { messageSendParamsV03 } from "../../../src/protocol/v03/params.ts";
import * as f from "./v03-fixtures.ts";
import golden from "./v03-golden.json";

describe("v0.3 JSON-RPC dialect", () => {
  it("writes tasks, messages, stream events, send answers and push configs as recorded", () => {
    expect(f.tasks.map(rpc.taskToV03)).toEqual(golden.rpc.tasks);
    expect(f.messages.map(rpc.messageToV03)).toEqual(golden.rpc.messages);
    expect(f.events.map(rpc.eventToV03)).toEqual(golden.rpc.events);
    expect(f.sendResults.map(rpc.sendResultToV03)).toEqual(golden.rpc.sendResults);
    expect(f.pushConfigs.map(rpc.pushConfigToV03)).toEqual(golden.rpc.pushConfigsOut);
  });

  it("reads message/send params and push configs as recorded", () => {
    const params = f.rpcSendParams.map((p) => messageSendParamsV03().parse(p));
    expect(params.map(rpc.sendParamsFromV03)).toEqual(golden.rpc.sendParamsIn);
    expect(f.rpcPushConfigs.map((c) => rpc.pushConfigFromV03(c, "task-1"))).toEqual(
      golden.rpc.pushConfigsIn,
    );
    expect(f.rpcPushConfigs.map((c) => rpc.pushConfigFromV03(c))).toEqual(
      golden.rpc.pushConfigsInNoTask,
    );
  });
});

describe("v0.3 HTTP+JSON dialect", () => {
  it("writes tasks, messages, stream events and push configs as recorded", () => {
    expect(f.tasks.map(rest.taskToV03Proto)).toEqual(golden.rest.tasks);
    expect(f.messages.map(rest.messageToV03Proto)).toEqual(golden.rest.messages);
    expect(f.events.map(rest.eventToV03Proto)).toEqual(golden.rest.events);
    expect(f.pushConfigs.map(rest.pushConfigToV03Proto)).toEqual(golden.rest.pushConfigsOut);
  });

  it("reads message:send and push config bodies as recorded", () => {
    expect(f.restSendBodies.map(rest.sendRequestFromV03Proto)).toEqual(golden.rest.sendBodiesIn);
    expect(f.restPushBodies.map(rest.pushConfigFromV03Proto)).toEqual(golden.rest.pushBodiesIn);
  });
});
