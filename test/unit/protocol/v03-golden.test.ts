/**
 * Both bindings' v0.3 output, held still: what the JSON-RPC dialect (the spec's JSON data objects,
 * `kind` discriminators and kebab-case states) and the HTTP+JSON dialect (ProtoJSON of the v0.3
 * proto: `content`, proto field names, `TASK_STATE_CANCELLED`) make of every shape in
 * v03-fixtures.ts equals v03-golden.json, recorded from the translation before it moved into one
 * place. A change to either dialect shows here as a diff of the wire.
 */
import { describe, expect, it } from "vitest";
import * as rest from "../../../src/a2a/rest/rest-codec-v03.ts";
import * as rpc from "../../../src/protocol/wire-v03.ts";
import * as f from "./v03-fixtures.ts";
import golden from "./v03-golden.json";

describe("v0.3 JSON-RPC dialect", () => {
  it("writes tasks, messages, stream events, send answers and push configs as recorded", () => {
    expect(f.tasks.map(rpc.taskToV03)).toEqual(golden.rpc.tasks);
    expect(f.messages.map(rpc.messageToV03)).toEqual(golden.rpc.messages);
    expect(f.events.map(rpc.eventToV03)).toEqual(golden.rpc.events);
    expect([
      rpc.sendResultToV03({ task: f.tasks[0] as never }),
      rpc.sendResultToV03({ message: f.messages[0] as never }),
    ]).toEqual(golden.rpc.sendResults);
    expect(f.pushConfigs.map((c) => rpc.pushConfigToV03({ ...c }))).toEqual(
      golden.rpc.pushConfigsOut,
    );
  });

  it("reads message/send params and push configs as recorded", () => {
    expect(f.rpcSendParams.map(rpc.sendParamsFromV03)).toEqual(golden.rpc.sendParamsIn);
    expect(f.rpcPushConfigs.map((c) => rpc.pushConfigFromV03(c, "task-1"))).toEqual(
      golden.rpc.pushConfigsIn,
    );
    expect(f.rpcPushConfigs.map((c) => rpc.pushConfigFromV03(c))).toEqual(
      golden.rpc.pushConfigsInNoTask,
    );
  });
});

describe("v0.3 HTTP+JSON dialect", () => {
  it("writes tasks, messages and stream events as recorded", () => {
    expect(f.tasks.map(rest.taskToV03)).toEqual(golden.rest.tasks);
    expect(f.messages.map(rest.messageToV03)).toEqual(golden.rest.messages);
    expect(f.events.map(rest.eventToV03)).toEqual(golden.rest.events);
  });

  it("reads message:send bodies as recorded", () => {
    expect(f.restSendBodies.map(rest.sendRequestFromV03)).toEqual(golden.rest.sendBodiesIn);
  });
});
