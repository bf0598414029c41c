/**
 * The one scrub every binding and face uses: an A2A error under 500, a protocol error and the
 * edge's own HttpError are named (the caller reads their message, nothing is logged); anything
 * else, an A2A error the table answers with a 5xx included, is logged once and reads "Internal
 * error". An HttpError keeps its status and shape in the bindings' error bodies too.
 */
import {
  InvalidAgentResponseError,
  TaskNotCancelableError,
  TaskNotFoundError,
} from "@a2a-js/sdk/errors";
import { describe, expect, it, vi } from "vitest";
import {
  callerMessage,
  INTERNAL_MESSAGE,
  parseError,
  restFailure,
  rpcErrorObject,
  scrub,
} from "../../../src/edge/errors.ts";
import { HttpError } from "../../../src/platform/http-error.ts";

const consent = new HttpError(403, "Consent required: read the policy", { details: true });

describe("the one scrub", () => {
  it("names A2A errors under 500, protocol errors and the edge's HttpErrors", () => {
    for (const error of [
      new TaskNotFoundError({ message: "no task t1" }),
      new TaskNotCancelableError({ message: "t1 has ended" }),
      parseError("Unexpected token"),
      consent,
    ]) {
      const log = vi.fn();
      expect(scrub(error, log), error.message).toBe(false);
      expect(callerMessage(error, log)).toBe(error.message);
      expect(log).not.toHaveBeenCalled();
    }
  });

  it("scrubs anything else, an A2A error the table answers with 500 too, logging it once", () => {
    for (const error of [
      new Error("D1_ERROR: no such table"),
      new InvalidAgentResponseError({ message: "the agent's answer had a secret in it" }),
      "a thrown string",
    ]) {
      const log = vi.fn();
      expect(callerMessage(error, log)).toBe(INTERNAL_MESSAGE);
      expect(log).toHaveBeenCalledExactlyOnceWith(error);
      // JSON-RPC's error object scrubs by the same rule.
      const rpcLog = vi.fn();
      expect(rpcErrorObject(error, "1.0", rpcLog)).toEqual({
        code: -32603,
        message: INTERNAL_MESSAGE,
      });
      expect(rpcLog).toHaveBeenCalledExactlyOnceWith(error);
    }
  });

  it("answers an HttpError with its own code, status and message on both bindings", () => {
    expect(rpcErrorObject(consent, "1.0")).toEqual({ code: -32000, message: consent.message });
    expect(restFailure(consent, "1.0")).toEqual({
      status: 403,
      body: {
        error: { code: 403, status: "PERMISSION_DENIED", message: consent.message, details: [] },
      },
    });
  });
});
