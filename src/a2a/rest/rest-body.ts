/**
 * Reads the JSON body of an HTTP+JSON request, whose media type the edge checked (rest-call.ts:
 * anything but JSON is ContentTypeNotSupportedError, HTTP 415, RFC 9110 §15.5.16): a body that is
 * not JSON is refused with InvalidParams naming the body, and so is one nested deeper than
 * MAX_JSON_DEPTH; an empty body reads as `{}`.
 */
import type { Context } from "hono";
import { z } from "zod";
import { invalidParams } from "../../edge/errors.ts";
import { bodyText } from "../../platform/json-body.ts";
import { TOO_DEEP_MESSAGE, tooDeep } from "../../protocol/json-shape.ts";

/** The request body as JSON (unvalidated). */
export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await bodyText(c.req);
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidParams(
      new z.ZodError([
        { code: "custom", path: [], message: "the body is not JSON", input: text.slice(0, 40) },
      ]),
      "body",
    );
  }
  const deep = tooDeep(body);
  if (deep)
    throw invalidParams(
      new z.ZodError([{ code: "custom", path: deep, message: TOO_DEEP_MESSAGE, input: null }]),
      "body",
    );
  return body;
}
