/** JSON errors of the REST API (`/api/...`), in the shape of the A2A REST errors. */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ALREADY_EXISTS",
  413: "INVALID_ARGUMENT",
};

/** A JSON error response. */
export function apiError(c: Context, code: ContentfulStatusCode, message: string): Response {
  return c.json({ error: { code, status: STATUS[code] ?? "UNKNOWN", message } }, code);
}

/** A 400 naming the first invalid field of a zod failure. */
export function invalid(c: Context, error: z.ZodError): Response {
  const issue = error.issues[0];
  return apiError(c, 400, `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
}

/** The request's JSON body, or undefined when it is not JSON. */
export async function jsonBody(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    return undefined;
  }
}
